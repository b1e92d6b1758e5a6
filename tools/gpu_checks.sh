#!/usr/bin/env bash
# Every GPU check in one go, for a machine with an NVIDIA GPU, CuPy and PyTorch CUDA:
#
#     bash tools/gpu_checks.sh [OUTDIR]        # default: benchmarks/gpu-run
#
# 1. the device and versions; 2. tools/bench_gpu.py (ratios against PyTorch CUDA);
# 3. the generated gradcheck suite with every sample on cuda; 4. the engine tests, the
# device-generic unit tests, the compiled generated samples and the ported programs that
# pick cuda, with the default device cuda.  Each step has its own time limit (seconds,
# GPU_CHECK_LIMIT_BENCH, _GENERATED, _UNITS) so a slow one cannot take the others' results
# with it; GPU_BENCH_ARGS passes options to the benchmark (--breakdown).  The benchmark
# runs alone; then both suites run side by side, each in parallel workers when
# pytest-xdist is installed.  Logs go to OUTDIR.
set -u
out=${1:-${OUT:-benchmarks/gpu-run}}
mkdir -p "$out"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
has_xdist=$($python -c "import xdist" 2>/dev/null && echo yes)
timeout_flag=$($python -c "import pytest_timeout" 2>/dev/null && echo "--timeout 120")

{ date -u; nvidia-smi; $python - <<'PY'
import platform, numpy, scipy
print("python", platform.python_version(), "numpy", numpy.__version__, "scipy", scipy.__version__)
try:
    import cupy; print("cupy", cupy.__version__, "CUDA runtime", cupy.cuda.runtime.runtimeGetVersion())
except Exception as exc: print("cupy:", exc)
try:
    import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.is_available())
except Exception as exc: print("torch:", exc)
PY
} >"$out/env.txt" 2>&1

echo "== bench_gpu.py"
timeout -k 10 "${GPU_CHECK_LIMIT_BENCH:-180}" $python tools/bench_gpu.py --skip-suite --out "$out" ${GPU_BENCH_ARGS:-} \
    >"$out/bench.log" 2>&1
echo "bench exit $?"; tail -n 12 "$out/bench.log"

run_suite() {  # name limit workers paths...
    local name=$1 limit=$2 workers=${has_xdist:+-n $3}; shift 3
    MINIGRAD_TEST_DEVICE=cuda timeout -s INT -k 30 "$limit" $python -m pytest "$@" -q \
        -p no:cacheprovider -rfE --tb=short $workers $timeout_flag >"$out/$name.log" 2>&1
    echo "== $name exit $?"; tail -n 3 "$out/$name.log"
}
run_suite generated "${GPU_CHECK_LIMIT_GENERATED:-300}" 10 tests/generated &
run_suite units "${GPU_CHECK_LIMIT_UNITS:-300}" 4 tests/unit/test_engine.py \
    tests/unit/test_seed_engine.py tests/unit/test_trust_engine.py tests/unit/test_hooks.py \
    tests/unit/test_views_inplace.py \
    tests/unit/nn/test_common_case_paths.py tests/unit/nn/test_more_pooling_vs_torch.py \
    tests/unit/compile/test_compile_behaviour.py \
    tests/unit/compile/test_compile_create_graph_follows_data.py \
    tests/unit/compile/test_compiled_compositions_follow_data.py \
    tests/unit/nn/test_grid_sample.py tests/unit/func/test_vmap.py tests/unit/test_distributions.py \
    tests/unit/test_cupy_differences.py tests/ported/test_gpu_training.py \
    tests/ported/test_mnist_cnn.py tests/ported/test_seq2seq.py tests/ported/test_text_classification.py \
    tests/unit/compile/test_compile_fused.py tests/unit/compile/test_compile_samples.py &
wait
