"""The nn layers, one file per family (as torch.nn.modules)."""
from minigrad.nn.modules.module import Module
from minigrad.nn.modules.container import (Sequential, ModuleList, ModuleDict, ParameterList,
                                           ParameterDict)
from minigrad.nn.modules.linear import Identity, Linear, Bilinear
from minigrad.nn.modules.flatten import Flatten, Unflatten
from minigrad.nn.modules.conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                                      ConvTranspose3d)
from minigrad.nn.modules.pooling import (MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d,
                                         AdaptiveAvgPool1d, AdaptiveAvgPool2d)
from minigrad.nn.modules.more_pooling import (
    AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, AdaptiveAvgPool3d, AvgPool3d, Fold,
    FractionalMaxPool2d, FractionalMaxPool3d, LocalResponseNorm,
    LPPool1d, LPPool2d, LPPool3d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, Unfold)
from minigrad.nn.modules.normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm,
                                               GroupNorm, RMSNorm, InstanceNorm1d,
                                               InstanceNorm2d, InstanceNorm3d)
from minigrad.nn.modules.padding import (
    ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d,
    ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
    ReplicationPad3d, CircularPad1d, CircularPad2d, CircularPad3d)
from minigrad.nn.modules.distance import PairwiseDistance, CosineSimilarity
from minigrad.nn.modules.dropout import Dropout, Dropout1d, Dropout2d, Dropout3d
from minigrad.nn.modules.sparse import Embedding, EmbeddingBag
from minigrad.nn.modules.rnn import (RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell,
                                     GRUCell)
from minigrad.nn.modules.activation import (
    ReLU, ReLU6, LeakyReLU, ELU, CELU, SELU, GELU, SiLU, Mish, Softplus, Hardtanh, Hardsigmoid,
    Hardswish, Sigmoid, Tanh, Softsign, Tanhshrink, LogSigmoid, Threshold, GLU, PReLU, Softmax,
    LogSoftmax, Softmin, MultiheadAttention)
from minigrad.nn.modules.loss import (
    L1Loss, MSELoss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss, SmoothL1Loss,
    HuberLoss, KLDivLoss, PoissonNLLLoss, GaussianNLLLoss, MarginRankingLoss,
    HingeEmbeddingLoss, CosineEmbeddingLoss, SoftMarginLoss, MultiLabelSoftMarginLoss,
    MultiMarginLoss, MultiLabelMarginLoss, TripletMarginLoss, CTCLoss)
from minigrad.nn.modules.upsampling import (Upsample, UpsamplingNearest2d,
                                            UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle)
from minigrad.nn.modules.more import (Softshrink, Hardshrink, RReLU, AlphaDropout,
                                      FeatureAlphaDropout, Softmax2d, ChannelShuffle,
                                      TripletMarginWithDistanceLoss)
from minigrad.nn.modules.transformer import (Transformer, TransformerEncoder,
                                             TransformerDecoder, TransformerEncoderLayer,
                                             TransformerDecoderLayer)
from minigrad.nn.modules.lazy import (
    LazyLinear, LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
    LazyConvTranspose3d, LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyInstanceNorm1d,
    LazyInstanceNorm2d, LazyInstanceNorm3d)

__all__ = [name for name in dir() if name[0].isupper()]
