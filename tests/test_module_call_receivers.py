"""Calls of nn.Module instances as receivers (``syntax.provenance``): ``out = self.decoder(h)`` is a tensor.

Each case in the shape old code has (pyro's VAE example, tacotron2's modules, training loops), found, and
the same code where the module returns something else (a tuple) or the callee is not known to be a
module: not found. Plus TU966 (reading ``.volatile``), whose fix is tested differentially.
"""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given

import torch_upgrade
from differential import assert_same_behaviour, rewrite, tensors


def scan(code: str, select: tuple[str, ...], low: str = "1.6") -> list[torch_upgrade.Finding]:
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version=low, to_version="2.13", select=select)
    assert not report.errors, report.errors
    return list(report.findings)


def found(code: str, *select: str) -> list[tuple[str, int, str]]:
    return sorted((f.rule, f.line, f.confidence) for f in scan(code, select))


# pyro's examples/vae_comparison.py (0.1): modules of the file held by a plain class
VAE = """
import torch
import torch.nn as nn

class Encoder(nn.Module):
    def __init__(self):
        super(Encoder, self).__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.relu = nn.ReLU()

    def forward(self, x):
        h1 = self.relu(self.fc1(x.view(-1, 784)))
        return self.fc21(h1), torch.exp(self.fc21(h1))

class Decoder(nn.Module):
    def __init__(self):
        super(Decoder, self).__init__()
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)
        self.relu = nn.ReLU()
        self.sigmoid = nn.Sigmoid()

    def forward(self, z):
        h3 = self.relu(self.fc3(z))
        return {RETURN}

class VAE(object):
    def __init__(self, args):
        self.vae_encoder = Encoder()
        self.vae_decoder = {DECODER}

    def reconstruction_error(self, x):
        z_mean, z_var = self.vae_encoder(x)
        recon_x = self.vae_decoder(z_mean)
        err = (recon_x - x.view(-1, 784)).pow(2).sum()
        return err.data[0]
"""


def vae(ret: str = "self.sigmoid(self.fc4(h3))", decoder: str = "Decoder()") -> str:
    return VAE.replace("{RETURN}", ret).replace("{DECODER}", decoder)


# ------------------------------------------------------------------ TU953: .data[0] of a full reduction
def test_a_full_reduction_of_a_module_output_is_0_d() -> None:
    assert found(vae(), "TU953") == [("TU953", 37, "certain")]


@pytest.mark.parametrize("ret, decoder", [
    ("self.sigmoid(self.fc4(h3)), h3", "Decoder()"),  # forward returns a tuple: .pow() of it is no tensor
    ("self.sigmoid(self.fc4(h3))", "build_decoder(args)"),  # a callee not known to be a module
    ("self.sigmoid(self.fc4(h3))", "args.decoder"),
])
def test_not_0_d_where_the_module_returns_a_tuple_or_is_unknown(ret: str, decoder: str) -> None:
    assert found(vae(ret, decoder), "TU953") == []


def test_the_output_of_a_module_is_0_d_only_when_reduced() -> None:
    # tacotron2's y_pred = model(x): ordinary indexing of a tensor with dimensions
    code = """
    import torch.nn as nn
    model = nn.Linear(80, 1)
    def validate(batch):
        y_pred = model(batch)
        first = y_pred.data[0]
        mean = model(batch).mean()
        return first, mean.data[0]
    """
    assert found(code, "TU953") == [("TU953", 8, "certain")]


# ------------------------------------------------------------------ TU053: x.T on a known rank
TRANSPOSE = """
import torch
import torch.nn as nn

def attention_weights():
    proj = {MODULE}
    x = torch.randn(4, 10, 16)
    keys = proj(x)
    return keys.T
"""


def test_a_rank_keeping_module_keeps_the_rank_of_its_input() -> None:
    report = scan(TRANSPOSE.replace("{MODULE}", "nn.Linear(16, 8)"), ("TU053",))
    assert [(f.rule, f.line) for f in report] == [("TU053", 9)]
    assert report[0].fix is not None and report[0].fix.replacement == "keys.permute(2, 1, 0)"


@pytest.mark.parametrize("module", ["nn.Flatten()", "nn.LSTM(16, 8)", "make_projection(16, 8)",
                                    "nn.Embedding(16, 8)"])
def test_no_rank_through_other_modules(module: str) -> None:
    assert found(TRANSPOSE.replace("{MODULE}", module), "TU053") == []


# ------------------------------------------------------------------ tensor methods
FEATURES = """
import torch
import torch.nn as nn
import torchvision

class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3)
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        return {RETURN}

class Whitening(object):
    def __init__(self):
        self.backbone = {BACKBONE}

    def fit(self, images):
        feats = self.backbone(images).view(images.size(0), -1)
        cov = feats.t().mm(feats) / feats.size(0)
        e, v = cov.symeig(eigenvectors=True)
        return v
"""


def features(ret: str = "self.pool(self.conv(x))", backbone: str = "Backbone().cuda()") -> str:
    return FEATURES.replace("{RETURN}", ret).replace("{BACKBONE}", backbone)


def test_a_tensor_method_on_a_module_output_is_found() -> None:
    assert found(features(), "TU202") == [("TU202", 22, "certain")]


def test_a_forward_that_may_return_something_else_makes_it_likely() -> None:
    assert found(features("self.extra(x)"), "TU202") == [("TU202", 22, "likely")]


@pytest.mark.parametrize("ret, backbone", [
    ("self.pool(self.conv(x)), x", "Backbone().cuda()"),  # a tuple
    ("{'out': self.pool(self.conv(x))}", "Backbone()"),  # a dict
    ("self.pool(self.conv(x))", "torchvision.models.resnet18()"),  # a library's module: unknown here
    ("self.pool(self.conv(x))", "backbone_from(cfg)"),
])
def test_not_found_where_the_module_returns_no_tensor_or_is_unknown(ret: str, backbone: str) -> None:
    assert found(features(ret, backbone), "TU202") == []


@pytest.mark.parametrize("module, expected", [
    ("nn.Linear(4, 4)", [("TU204", 6, "certain")]),
    ("nn.Sequential(nn.Linear(4, 4), nn.ReLU())", [("TU204", 6, "certain")]),
    ("nn.DataParallel(nn.Linear(4, 4))", [("TU204", 6, "certain")]),
    ("nn.Identity()", [("TU204", 6, "likely")]),  # returns its input, whatever it is
    ("nn.MaxPool1d(2)", [("TU204", 6, "certain")]),
    ("nn.MaxPool1d(2, return_indices=True)", []),  # values and indices
    ("nn.LSTM(4, 4)", []),  # output and state
    ("nn.MultiheadAttention(4, 2)", []),
])
def test_torch_modules(module: str, expected: list) -> None:
    code = f"""
    import torch
    import torch.nn as nn
    layer = {module}
    h = layer(torch.randn(4, 4))
    q, r = h.qr()
    """
    assert found(code, "TU204") == expected


def test_a_tuple_is_indexed_by_the_usual_rule() -> None:
    code = """
    import torch.nn as nn
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(8, 8)
            self.fc = nn.Linear(8, 8)
        def forward(self, x):
            out = self.rnn(x)[0]
            q, r = out.qr()
            h = self.fc(x)[0]
            q, r = h.qr()
            return self(x).qr()
    """
    # the LSTM's output[0] is not known to be a tensor (the tuple is no tensor); nn.Linear's is;
    # self(x) is what this forward returns: a tensor of the module
    assert found(code, "TU204") == [("TU204", 12, "certain"), ("TU204", 13, "likely")]


def test_an_annotated_module_parameter_is_likely() -> None:
    code = """
    import torch.nn as nn
    def evaluate(model: nn.Module, batch):
        out = model(batch)
        q, r = out.qr()
    def evaluate_any(model, batch):
        out = model(batch)
        q, r = out.qr()
    """
    assert found(code, "TU204") == [("TU204", 5, "likely")]


def test_a_class_defining_call_is_not_read_through_forward() -> None:
    code = """
    import torch
    import torch.nn as nn
    class Wrapped(nn.Module):
        def forward(self, x):
            return torch.relu(x)
        def __call__(self, x):
            return [x]
    net = Wrapped()
    q, r = net(torch.ones(2, 2)).qr()
    """
    assert found(code, "TU204") == []


# ------------------------------------------------------------------ TU966: x.volatile
def test_volatile_on_a_module_output_is_found_and_fixed_where_certain() -> None:
    code = """
    import torch
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)
        def forward(self, x):
            out = self.fc(x)
            if out.volatile:
                return out.detach()
            return out
    """
    [finding] = scan(code, ("TU966",))
    assert (finding.line, finding.confidence, finding.severity) == (10, "certain", "error")
    assert finding.fix is not None and finding.fix.safety == "safe" and finding.fix.replacement == "False"


def test_volatile_of_an_unknown_module_is_not_found() -> None:
    code = """
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self, layer):
            super().__init__()
            self.fc = layer
        def forward(self, x):
            out = self.fc(x)
            if out.volatile:
                return out.detach()
            return out
    """
    assert found(code, "TU966") == []


def test_volatile_of_a_gradient_is_advice() -> None:
    # pyro.util.zero_grads (0.1): p.grad may be None, whose .volatile raised
    code = """
    import torch
    def zero_grads(model):
        for p in model.parameters():
            if p.grad is not None:
                if p.grad.volatile:
                    p.grad.data.zero_()
    """
    [finding] = scan(code, ("TU966",))
    assert finding.line == 6 and finding.fix is None


@pytest.mark.differential("TU966")
@given(x=tensors())
def test_volatile_read_rewrite(x) -> None:
    code = ("y = torch.as_tensor(x)\nh = torch.nn.ReLU()(y)\n"
            "out = (y.volatile, not y.data.volatile, h.volatile)\n")
    assert rewrite("import torch\n" + code, "TU966").count("False") == 3
    assert_same_behaviour(code, rules="TU966", x=x)


def test_a_module_holding_tensors_is_no_tensor_itself() -> None:
    # torch's testing/_internal/common_quantization.py: FloatFunctional.add(x, y) is the module's method;
    # the outputs of the convolutions passed to it do not make its receiver a tensor
    code = """
    import torch
    import torch.nn as nn
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 3, (1, 1), bias=False)
            self.conv2 = nn.Conv2d(3, 3, (1, 1), bias=False)
            self.skip_add = nn.quantized.FloatFunctional()
        def forward(self, x):
            out = self.conv1(x)
            skip = self.conv2(x)
            out = self.skip_add.add(out, skip)
            skip.add_(-1, out)
            return out
    """
    assert found(code, "TU934") == [("TU934", 14, "certain")]
