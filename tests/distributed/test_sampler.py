"""DistributedSampler against PyTorch's: which indices each rank reads (no MPI needed)."""
import pytest

from minigrad.utils.data import DataLoader, DistributedSampler


@pytest.mark.parametrize("size", [7, 10, 11])
@pytest.mark.parametrize("drop_last", [False, True])
def test_ranks_read_pytorchs_shares_in_order(size, drop_last):
    torch = pytest.importorskip("torch")
    for rank in range(3):
        ours = DistributedSampler(range(size), num_replicas=3, rank=rank, shuffle=False,
                                  drop_last=drop_last)
        theirs = torch.utils.data.DistributedSampler(range(size), num_replicas=3, rank=rank,
                                                     shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_shuffled_shares_cover_the_dataset_once_and_follow_the_epoch():
    ranks = [DistributedSampler(range(10), num_replicas=2, rank=r, seed=5) for r in (0, 1)]
    first = [list(s) for s in ranks]
    assert sorted(first[0] + first[1]) == list(range(10))
    assert [list(s) for s in ranks] == first  # same epoch, same shuffle
    for s in ranks:
        s.set_epoch(1)
    second = [list(s) for s in ranks]
    assert second != first and sorted(second[0] + second[1]) == list(range(10))


def test_works_as_a_dataloader_sampler():
    sampler = DistributedSampler(list(range(6)), num_replicas=2, rank=1, shuffle=False)
    assert [batch.tolist() for batch in DataLoader(list(range(6)), batch_size=2,
                                                    sampler=sampler)] == [[1, 3], [5]]


def test_bad_rank_and_missing_process_group_raise():
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(RuntimeError, match="Requires distributed package"):
        DistributedSampler(range(4))
