"""A rule's ``runtime`` texts match what the installed torch says when the rule's code runs.

``--verify`` (``torch_upgrade.verify.runtime.match_rule``) attributes each warning and removal error torch
raised while a project's tests ran to the rule whose ``runtime`` regular expressions match its text. Here
each such rule has a snippet of its old code; all of them run in one subprocess (torch imported once,
``torch.set_warn_always(True)`` as the pytest plugin sets it, every warning shown), which reports the
texts of the warnings each snippet raised and of the exception that stopped it, as
``"ExceptionType: message"``. Then every pattern of the rule matches one of its snippet's texts, no
pattern of another rule matches any of them, and ``match_rule`` attributes them to the rule. Which of a
rule's texts the installed torch can show follows from the rule's versions (``_expected``): none for a
change newer than it, one period's for a rule that spans a deprecation and a removal.

A snippet is a string, or a tuple of strings where one snippet cannot show all of a rule's texts (an
exception ends a snippet). Snippets avoid code that makes torch say what another rule is about (a
scripted module warns about ``torch.jit.script``, TU804).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import subprocess
import sys
from typing import Optional, Union

import pytest

from packaging.version import Version

from torch_upgrade.catalog.ruledata import Rule, load_rules
from torch_upgrade.core.versions import parse_version
from torch_upgrade.verify.runtime import match_rule

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")

Snippet = Union[str, tuple[str, ...]]

SNIPPETS: dict[str, Snippet] = {
    # ------------------------------------------------------------------ 0.x
    "TU959": "import torch\ntorch.range(0, 3)\n",
    "TU967": "import torch\nclass Scale(torch.autograd.Function):\n    def forward(self, x):\n        return x * 2\n"
             "Scale()(torch.ones(2))\n",
    "TU962": "import torch.nn as nn\nnn.Container(a=nn.Linear(1, 1))\n",
    "TU969": ("import torch\nx = torch.arange(4.0)\n1 - (x > 1)\n", "import torch\nx = torch.arange(4.0)\n-(x > 1)\n"),
    "TU958": "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nx = torch.ones(2, 3)\n"
             "F.softmax(x)\nF.log_softmax(x)\nF.softmin(x)\nnn.LogSoftmax()(x)\n",
    "TU951": "import torch\nfrom torch.autograd import Variable\nVariable(torch.ones(2), volatile=True)\n",
    "TU953": "import torch\nx = torch.arange(4.0)\nx.sum().data[0]\n",
    "TU955": "import torch\nimport torch.nn as nn\nw = torch.empty(3, 3)\n"
             "for name in ['uniform', 'normal', 'eye', 'xavier_uniform', 'xavier_normal', 'kaiming_uniform',\n"
             "             'kaiming_normal', 'orthogonal']:\n"
             "    getattr(nn.init, name)(w)\n"
             "nn.init.constant(w, 0.5)\nnn.init.dirac(torch.empty(2, 2, 3))\nnn.init.sparse(w, 0.5)\n",
    "TU956": "import torch\nm = torch.nn.Linear(2, 1)\nm(torch.ones(1, 2)).sum().backward()\n"
             "torch.nn.utils.clip_grad_norm(m.parameters(), 0.5)\n",
    "TU960": "import torch\ntorch.arange(6.0).resize(2, 3)\n",
    "TU963": "import torch\ntorch.autograd.variable([1.0, 2.0], requires_grad=True)\n",
    "TU966": "import torch\ntorch.zeros(2).volatile\n",
    "TU954": "import torch\nimport torch.nn.functional as F\nx = torch.arange(16.0).view(1, 1, 4, 4)\n"
             "F.upsample(x, scale_factor=2)\nF.upsample_bilinear(x, size=(7, 7))\nF.upsample_nearest(x, None, 2)\n",
    "TU957": "import torch.nn as nn\nnn.MSELoss(size_average=False)\nnn.L1Loss(size_average=True, reduce=True)\n"
             "nn.BCELoss(reduce=False)\n",
    # ------------------------------------------------------------------ 1.x
    "TU605": "import torch.distributed as dist\ndist.reduce_op.SUM\n",
    "TU027": "import torch\ntorch.nn.NLLLoss2d(ignore_index=0)\n",
    "TU028": "import torch\n"
             "class View(torch.autograd.Function):\n"
             "    @staticmethod\n"
             "    def forward(ctx, x):\n"
             "        y = x.view(-1)\n"
             "        ctx.mark_shared_storage((x, y))\n"
             "        return y\n"
             "    @staticmethod\n"
             "    def backward(ctx, grad):\n"
             "        return grad\n"
             "View.apply(torch.ones(2, requires_grad=True))\n",
    "TU032": "import torch\nfrom torch.distributions import Normal\nNormal(torch.zeros(2), torch.ones(2)).sample_n(3)\n",
    "TU705": "import torch\nfrom torch.utils.data import ConcatDataset, TensorDataset\n"
             "ConcatDataset([TensorDataset(torch.arange(3)), TensorDataset(torch.arange(2))]).cummulative_sizes\n",
    "TU631": "import torch\ntorch.nn.parallel.DistributedDataParallelCPU(torch.nn.Linear(2, 2))\n",
    "TU506": ("import torch\nx = torch.arange(6.0).reshape(2, 3)\nx[(x > 2).byte()]\n",
              "import torch\na = torch.ones(3)\ntorch.where(torch.tensor([0, 2, 255], dtype=torch.uint8), a, -a)\n"),
    "TU230": ("import torch\ntorch.gesv(torch.ones(3, 1), torch.eye(3))\n",
              "import torch\ntorch.ones(3, 1).gesv(torch.eye(3))\n",
              "from torch import gesv\n"),
    "TU231": ("import torch\ntorch.potrf(torch.eye(3))\n", "import torch\ntorch.eye(3).potrf()\n", "from torch import potrf\n"),
    "TU232": ("import torch\ntorch.potrs(torch.ones(3, 1), torch.eye(3))\n",
              "import torch\ntorch.ones(3, 1).potrs(torch.eye(3))\n",
              "from torch import potrs\n"),
    "TU233": ("import torch\ntorch.potri(torch.eye(3))\n", "from torch import potri\n"),
    "TU234": ("import torch\ntorch.pstrf(torch.eye(3))\n", "import torch\ntorch.eye(3).pstrf()\n", "from torch import pstrf\n"),
    "TU235": ("import torch\ntorch.trtrs(torch.ones(3, 1), torch.eye(3))\n",
              "import torch\ntorch.ones(3, 1).trtrs(torch.eye(3))\n",
              "from torch import trtrs\n"),
    "TU236": ("import torch\ntorch.btrifact(torch.eye(3).expand(2, 3, 3))\n",
              "import torch\ntorch.eye(3).expand(2, 3, 3).btrifact()\n",
              "from torch import btrifact\n"),
    "TU237": ("import torch\ntorch.btrifact_with_info(torch.eye(3).expand(2, 3, 3))\n",
              "from torch import btrifact_with_info\n"),
    "TU238": ("import torch\nLU, piv = torch.linalg.lu_factor(torch.eye(3).expand(2, 3, 3))\n"
              "torch.btrisolve(torch.ones(2, 3), LU, piv)\n",
              "from torch import btrisolve\n"),
    "TU239": ("import torch\ntorch.gels(torch.ones(3, 1), torch.eye(3))\n", "from torch import gels\n"),
    "TU961": ("import torch\ntorch.cuda.memory_cached()\ntorch.cuda.max_memory_cached()\n",
              "import torch\ntorch.cuda.reset_max_memory_cached()\n",
              "import torch\ntorch.cuda.reset_max_memory_allocated()\n"),
    "TU606": "import torch.distributed.deprecated\n",
    "TU965": "import torch\nimport torch.nn.functional as F\nF.dropout2d(torch.randn(8, 16, 100), p=0.2)\n",
    "TU934": "import torch\np = torch.ones(3)\ng = torch.ones(3)\np.add_(-0.1, g)\np.sub_(0.1, g)\np.add(-0.1, g)\np.sub(0.1, g)\n",
    "TU935": "import torch\np = torch.ones(3)\nt = torch.ones(3)\np.addcdiv_(-0.1, t, t)\np.addcmul_(0.5, t, t)\n"
             "p.addcdiv(-0.1, t, t)\np.addcmul(0.5, t, t)\n",
    "TU936": "import torch\nx = torch.ones(3)\ntorch.add(x, 2, x)\ntorch.sub(x, 2, x, out=torch.empty(3))\n",
    "TU937": "import torch\nx = torch.ones(3)\ntorch.addcdiv(x, -0.1, x, x)\ntorch.addcmul(x, 0.5, x, x)\n",
    "TU938": "import torch\nM = torch.ones(2, 2)\nB = torch.ones(3, 2, 2)\nv = torch.ones(2)\n"
             "M.addmm_(1, -2, M, M)\nM.addmm(0.5, M, M)\nM.addbmm(0.5, B, B)\nB.baddbmm_(0.5, 2.0, B, B)\n"
             "v.addmv(2.0, M, v)\nM.addr(2.0, v, v)\nS = torch.eye(2).to_sparse()\nS.sspaddmm(0.5, S, torch.eye(2))\n",
    "TU939": "import torch\nM = torch.ones(2, 2)\nB = torch.ones(3, 2, 2)\nv = torch.ones(2)\n"
             "torch.addmm(1, M, 2, M, M)\ntorch.addmm(0.5, M, M, M)\ntorch.addbmm(0.5, M, 2.0, B, B)\n"
             "torch.baddbmm(0.5, B, B, B)\ntorch.addmv(2.0, v, M, v)\ntorch.addr(2.0, M, v, v)\n"
             "S = torch.eye(2).to_sparse()\ntorch.sspaddmm(0.5, S, S, torch.eye(2))\n",
    "TU102": ("import torch\ntorch.ifft(torch.ones(4, 2), 1)\n", "from torch import ifft\n"),
    "TU103": ("import torch\ntorch.rfft(torch.ones(4), 1)\n", "from torch import rfft\n"),
    "TU104": ("import torch\ntorch.irfft(torch.ones(4, 2), 1)\n", "from torch import irfft\n"),
    "TU105": ("import torch\ntorch.ones(4, 2).fft(1)\n", "import torch\ntorch.ones(4, 2).ifft(1)\n",
              "import torch\ntorch.ones(4).rfft(1)\n", "import torch\ntorch.ones(4, 2).irfft(1)\n"),
    "TU003": ("import torch\ntorch.set_deterministic(True)\n", "import torch\ntorch.is_deterministic()\n",
              "from torch import set_deterministic\n", "from torch import is_deterministic\n"),
    "TU906": "import torch\nfrom torch.nn.utils.rnn import pack_padded_sequence\n"
             "# lengths on another device than the CPU (a CUDA tensor in the rule's code)\n"
             "pack_padded_sequence(torch.ones(2, 3, 1), torch.tensor([3, 2], device='meta'), batch_first=True)\n",
    "TU020": tuple(
        "import torch\nimport torch.nn as nn\n"
        "class M(nn.Module):\n"
        "    def forward(self, x):\n"
        f"        return {result}\n"
        "m = M()\nm.register_backward_hook(lambda *args: None)\n"
        f"m({argument})\n"
        for result, argument in [
            ("{'a': x * 2}", "torch.ones(2, requires_grad=True)"),       # does not return tensors
            ("x['a'] * 2", "{'a': torch.ones(2, requires_grad=True)}"),  # does not take tensors
            ("(x * 2, x + 1)", "torch.ones(2, requires_grad=True)"),     # outputs of several nodes
            ("(x * 2).exp()", "torch.ones(2, requires_grad=True)"),      # a forward of several nodes
        ]),
    "TU940": "import torch\nwith torch.profiler.profile(use_cuda=False):\n    torch.ones(3) * 2\n",
    "TU201": "import torch\ntorch.solve(torch.ones(3, 1), torch.eye(3))\n",
    "TU202": "import torch\ntorch.symeig(torch.eye(3))\n",
    "TU203": "import torch\ntorch.cholesky(torch.eye(3))\n",
    "TU204": "import torch\ntorch.qr(torch.eye(3))\n",
    "TU207": "import torch\ntorch.lstsq(torch.ones(3, 1), torch.eye(3))\n",
    "TU208": "import torch\ntorch.eig(torch.eye(3))\n",
    "TU209": "import torch\ntorch.matrix_rank(torch.eye(3))\n",
    "TU210": "import torch\ntorch.chain_matmul(torch.eye(3), torch.eye(3))\n",
    "TU620": "import contextlib\nimport io\nfrom torch.distributed.launch import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    try:\n"
             "        main(['--help'])\n"
             "    except SystemExit:\n"
             "        pass\n",
    "TU035": "import torch.tensor as tt\n",
    "TU986": "from torch.autograd.gradcheck import zero_gradients\n",
    "TU029": "import torch\nfrom torch.autograd.gradcheck import get_analytical_jacobian, get_numerical_jacobian\n"
             "x = torch.ones(2, dtype=torch.float64, requires_grad=True)\n"
             "get_numerical_jacobian(lambda t: t * 2, (x,), eps=1e-6)\nget_analytical_jacobian((x,), x * 2)\n",
    "TU628": "from torch.distributed.elastic import metrics\n"
             "@metrics.profile('agent')\ndef rendezvous():\n    return 1\n"
             "rendezvous()\nmetrics.publish_metric('agent', 'restarts', 1)\n",
    "TU021": "import torch\ntorch.meshgrid(torch.ones(2), torch.ones(3))\n",
    "TU428": "from torch.fx.experimental.unification.multipledispatch import Dispatcher, halt_ordering, restart_ordering\n"
             "halt_ordering()\nadd = Dispatcher('add')\n"
             "@add.register(int, int)\ndef _(a, b):\n    return a + b\n"
             "add.resolve((int, int))\nrestart_ordering()\n",
    "TU211": "import torch\ntorch.triangular_solve(torch.ones(3, 1), torch.eye(3))\n",
    "TU053": "import torch\ntorch.randn(2, 3, 4).T\n",
    "TU054": "from torch.utils.data import Sampler\nclass Sorted(Sampler):\n    def __init__(self, data):\n"
             "        super().__init__(data)\nSorted([3, 1, 2])\n",
    "TU945": "import torch\nfrom torch.ao.quantization import QConfigDynamic\n"
             "QConfigDynamic(weight=torch.ao.quantization.default_weight_observer)\n",
    "TU401": "import torch\nfrom torch.nn.utils.stateless import functional_call\nm = torch.nn.Linear(2, 2)\n"
             "functional_call(m, dict(m.named_parameters()), (torch.ones(2),))\n",
    "TU402": "import torch\nimport functorch\nx = torch.ones(2)\n"
             "functorch.vmap(torch.sin)(x)\nfunctorch.grad(torch.sin)(torch.tensor(1.0))\n"
             "functorch.jacrev(torch.sin)(x)\nfunctorch.vjp(torch.sin, x)\n",
    "TU403": "import torch\nimport functorch\nfunctorch.make_functional(torch.nn.Linear(2, 2))\n"
             "functorch.make_functional_with_buffers(torch.nn.Linear(2, 2))\n"
             "functorch.combine_state_for_ensemble([torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)])\n",
    "TU702": "from torch.utils.data.dataloader_experimental import DataLoader2\n",
    "TU902": "import torch\ntorch.has_cuda, torch.has_cudnn, torch.has_mps, torch.has_mkldnn\n",
    "TU901": "import torch\ntorch.testing.assert_allclose(torch.ones(2), torch.ones(2))\n",
    "TU706": "from torch.utils.data import backward_compatibility\nbackward_compatibility.worker_init_fn(0)\n",
    "TU212": "import torch\ntorch.lu(torch.eye(3))\n",
    "TU213": "import torch\nLU, piv = torch.linalg.lu_factor(torch.eye(3))\ntorch.lu_solve(torch.ones(3, 1), LU, piv)\n",
    "TU031": "import torch\nfrom torch.nn.modules.rnn import apply_permutation\n"
             "from torch.nn.parallel.scatter_gather import is_namedtuple\n"
             "apply_permutation(torch.ones(2, 3), torch.tensor([2, 0, 1]))\nis_namedtuple((1, 2))\n",
    "TU625": ("import torch\nimport torch.distributed as dist\ndist.all_reduce_coalesced([torch.ones(2)])\n",
              "import torch\nimport torch.distributed as dist\ndist.all_gather_coalesced([[torch.ones(2)]], [torch.ones(2)])\n"),
    "TU707": "import torch\nfrom torch.utils.data import graph_settings\n"
             "from torch.utils.data.datapipes.iter import IterableWrapper\n"
             "graph_settings.apply_shuffle_seed(IterableWrapper(range(3)).shuffle(), torch.Generator())\n",
    "TU946": "import torch\ntorch.ao.quantization.get_default_qconfig_dict('fbgemm')\n"
             "torch.ao.quantization.get_default_qat_qconfig_dict()\n",
    # ------------------------------------------------------------------ 2.x
    "TU501": "import torch\nwith torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=True):\n    pass\n",
    "TU414": "import torch\ntorch._utils.is_compiling()\n",
    "TU447": "import torch\nimport torch._dynamo\ntorch._dynamo.explain(lambda t: t + 1, torch.ones(2))\n",
    "TU050": ("from torch._six import inf\n", "import torch\ntorch._six.inf\n"),
    "TU051": "import torch\n"
             "# TypedStorage warns once per process, whatever torch.set_warn_always says\n"
             "torch.storage._reset_warn_typed_storage_removal()\n"
             "torch.zeros(3).storage()\n",
    "TU052": "import torch\ntorch.set_default_tensor_type(torch.FloatTensor)\n",
    "TU503": ("import torch\nmha = torch.nn.MultiheadAttention(4, 1)\nx = torch.ones(3, 2, 4)\n"
              "mha(x, x, x, key_padding_mask=torch.zeros(2, 3, dtype=torch.uint8))\n",
              "import torch\nlayer = torch.nn.TransformerEncoderLayer(8, 2)\n"
              "layer(torch.ones(3, 2, 8), src_mask=torch.zeros(3, 3).byte())\n"),
    "TU801": ("import torch\ntorch.onnx.dynamo_export(torch.nn.Linear(2, 2), torch.ones(2))\n",
              "from torch.onnx import dynamo_export\n"),
    "TU108": ("import torch\ntorch.stft(torch.randn(400), 64, window=torch.hann_window(64))\n",
              "import torch\ntorch.stft(torch.randn(400), 64, window=torch.hann_window(64), return_complex=False)\n"),
    "TU030": "import torch\nfrom torch._vmap_internals import vmap\nvmap(torch.sin)(torch.ones(3))\n",
    "TU024": "import torch\ntorch.nn.utils.weight_norm(torch.nn.Linear(3, 2))\n",
    "TU025": ("import torch\nimport torch.utils.checkpoint\n"
              "torch.utils.checkpoint.checkpoint(lambda t: t * 2, torch.ones(2, requires_grad=True))\n",
              "import torch\nfrom torch.utils.checkpoint import checkpoint_sequential\n"
              "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))\n"
              "checkpoint_sequential(model, 2, torch.ones(1, 2, requires_grad=True))\n"),
    "TU507": ("import torch\nscores = torch.ones(1, 3)\nscores.masked_fill(torch.tensor([[0, 0, 1]], dtype=torch.uint8), 0.0)\n",
              "import torch\nx = torch.arange(4.0)\ntorch.masked_select(x, x.gt(1).type(torch.ByteTensor))\n",
              "import torch\nx = torch.arange(4.0)\nx.masked_scatter_(x.gt(1).type(torch.ByteTensor), torch.tensor([7.0, 8.0]))\n"),
    "TU034": ("import torch\nfrom torch.nn.utils import remove_weight_norm\n"
              "from torch.nn.utils.parametrizations import weight_norm\n"
              "remove_weight_norm(weight_norm(torch.nn.Conv1d(2, 2, 3)))\n",
              "import torch\nfrom torch.nn.utils.parametrizations import weight_norm\n"
              "weight_norm(torch.nn.Conv1d(2, 2, 3)).weight_g\n"),
    "TU430": ("import functorch\nfunctorch._C._set_vmap_fallback_warning_enabled(False)\n",
              "from functorch import _C\n"),
    "TU421": "import torch.utils._pytree as pytree\n"
             "class Pair:\n    def __init__(self, a, b):\n        self.a, self.b = a, b\n"
             "pytree._register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda values, context: Pair(*values))\n",
    "TU621": "import tempfile\nimport torch\nimport torch.distributed.checkpoint as dcp\n"
             "path = tempfile.mkdtemp()\n"
             "dcp.save_state_dict({'a': torch.ones(2)}, dcp.FileSystemWriter(path), no_dist=True)\n"
             "dcp.load_state_dict({'a': torch.zeros(2)}, storage_reader=dcp.FileSystemReader(path), no_dist=True)\n",
    "TU222": "import torch\ntorch.cross(torch.randn(4, 3), torch.randn(4, 3))\n",
    "TU942": "import torch\nwith torch.autograd.profiler.profile() as prof:\n    torch.ones(3) * 2\n"
             "event = prof.function_events[0]\n"
             "event.cuda_time_total, event.self_cuda_time_total, event.self_cuda_memory_usage, event.cuda_time\n",
    "TU303": "import torch\nwith torch.cuda.amp.autocast(enabled=False):\n    pass\n",
    "TU304": "import torch\ntorch.cuda.amp.GradScaler(enabled=False)\n",
    "TU305": "import torch\nwith torch.cpu.amp.autocast():\n    pass\ntorch.cpu.amp.GradScaler()\n",
    "TU316": "import torch\ntorch.get_autocast_gpu_dtype()\ntorch.set_autocast_cpu_dtype(torch.bfloat16)\n"
             "torch.is_autocast_cpu_enabled()\ntorch.set_autocast_cpu_enabled(False)\n",
    "TU330": "import torch\n"
             "class Square(torch.autograd.Function):\n"
             "    @staticmethod\n"
             "    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)\n"
             "    def forward(ctx, x):\n"
             "        return x * x\n"
             "    @staticmethod\n"
             "    @torch.cuda.amp.custom_bwd\n"
             "    def backward(ctx, grad):\n"
             "        return grad\n",
    "TU422": "import torch\n"
             "@torch.library.custom_op('tu_runtime_texts::twice', mutates_args=())\n"
             "def twice(x: torch.Tensor) -> torch.Tensor:\n    return x * 2\n"
             "@torch.library.impl_abstract('tu_runtime_texts::twice')\n"
             "def _(x):\n    return torch.empty_like(x)\n",
    "TU423": "import torch\nfrom torch._custom_op.impl import custom_op\n"
             "@custom_op('tu_runtime_texts::foo')\n"
             "def foo(x: torch.Tensor) -> torch.Tensor:\n    ...\n",
    "TU803": "import argparse\nimport io\nimport torch\nbuffer = io.BytesIO()\n"
             "torch.save({'args': argparse.Namespace(lr=0.1)}, buffer)\nbuffer.seek(0)\ntorch.load(buffer)\n",
    "TU807": "import torch\ntorch.onnx.utils.unconvertible_ops(torch.nn.Linear(2, 2), (torch.ones(2),), opset_version=17)\n",
    "TU425": "from torch.fx.experimental.symbolic_shapes import ShapeGuardPrinter\n"
             "ShapeGuardPrinter({}, lambda source: source.name(), {})\n",
    "TU941": "import torch\nimport torch.ao.quantization as tq\nmodel = torch.nn.Sequential(torch.nn.Linear(2, 2))\n"
             "model.qconfig = tq.default_qconfig\ntq.prepare(model, inplace=False)\n",
    "TU982": ("from torch.ao.quantization.quantize_pt2e import prepare_pt2e\n",
              "from torch.ao.quantization.quantizer.xnnpack_quantizer import XNNPACKQuantizer\n"),
    "TU629": "from torch.distributed.fsdp import FSDPModule\n"
             "FSDPModule.set_reduce_scatter_divide_factor(object(), 2.0)  # warns before it calls the new name\n",
    "TU626": "from torch.distributed.checkpoint.staging import AsyncStager\n"
             "class Stager(AsyncStager):\n    def stage(self, state_dict):\n        return state_dict\n"
             "Stager().synchronize_staging()\n",
    "TU804": ("import io\nimport torch\nscripted = torch.jit.script(torch.nn.Linear(2, 2))\nbuffer = io.BytesIO()\n"
              "torch.jit.save(scripted, buffer)\nbuffer.seek(0)\ntorch.jit.load(buffer)\n"
              "torch.jit.trace(torch.nn.Linear(2, 2), torch.ones(1, 2))\n"),
    "TU805": ("import torch\ntorch.jit.wait(torch.jit.fork(lambda x: x * 2, torch.ones(2)))\n"
              "torch.jit.set_fusion_strategy([('STATIC', 2)])\n",
              "import torch\ndef make():\n    def forward(self, x):\n        return x\n"
              "    return torch.jit.script_method(forward)  # resolves names in its caller's frame\nmake()\n"),
    "TU429": "import torch.utils._pytree as pytree\n_, spec = pytree.tree_flatten([1, (2, 3)])\nspec.children_specs\n",
    "TU426": "import sympy\nfrom torch.fx.experimental.symbolic_shapes import ShapeEnv, guard_size_oblivious\n"
             "env = ShapeEnv()\nenv.var_to_val\nenv.add_var_to_val(sympy.Symbol('s0', positive=True, integer=True), 4)\n"
             "guard_size_oblivious(True)\n",
    "TU419": "import torch._dynamo\ntorch._dynamo.config.inline_inbuilt_nn_modules = True\n",
    "TU622": "import torch\nimport torch.distributed.nn.functional as dist_fn\ndist_fn.all_reduce(torch.ones(2))\n",
    "TU623": "import torch\nimport torch.distributed as dist\ndist.all_gather_into_tensor(torch.ones(2), torch.ones(2))\n",
    "TU636": "import torch\nimport torch.distributed as dist\ndist._reduce_scatter_base(torch.ones(2), torch.ones(2))\n",
    "TU624": "import torch\nimport torch.distributed as dist\n"
             "dist.init_process_group('gloo', store=dist.HashStore(), rank=0, world_size=1)\n"
             "try:\n"
             "    torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2), broadcast_buffers=True)\n"
             "    torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2), broadcast_buffers=False,\n"
             "                                              forward_sync_buffers=True)\n"
             "finally:\n"
             "    dist.destroy_process_group()\n",
    "TU427": "import sympy\nfrom torch.fx.experimental.symbolic_shapes import ShapeEnv\nShapeEnv().size_hint(sympy.Integer(3))\n",
    "TU944": "import torch\nwith torch.autograd.profiler.profile() as prof:\n    torch.ones(3) * 2\n"
             "prof.function_events[0].metadata_json\n",
    "TU033": ("import torch\ntorch.accelerator.current_device_idx()\n", "import torch\ntorch.accelerator.set_device_idx(0)\n"),
    # ------------------------------------------------------------------ 2.14 (texts of torch >= 2.14: see _expected)
    "TU947": ("import inspect\nimport torch\nP = torch.autograd.profiler.profile\n"
              "if 'use_cuda' in inspect.signature(P).parameters:  # 2.13: the warning; 2.14: TU940's TypeError\n"
              "    P(use_cuda=True)\n",
              "import torch\ntorch.autograd.profiler.profile().use_cuda\n"),
    "TU948": "import torch\nwith torch.profiler.profile(with_modules=True):\n    torch.ones(2) * 2\n",
    "TU949": "import torch\ncfg = torch.profiler._ExperimentalConfig(profiler_metrics=['kineto__cuda_core_flops'],\n"
             "                                         profiler_measure_per_kernel=True)\n"
             "with torch.profiler.profile(experimental_config=cfg):\n    torch.ones(2) * 2\n",
    "TU440": "import torch\ntorch.compile(lambda x: x * 2, shapes_spec=None)\n",
    "TU441": "import torch._dynamo\ntorch._dynamo.config.enable_faithful_generator_behavior = True\n",
    "TU640": "import torch.distributed.config\ntorch.distributed.config.compile_on_one_rank = False\n",
    "TU641": "import datetime\nimport torch.distributed as dist\n"
             "dist.init_process_group('gloo', store=dist.HashStore(), rank=0, world_size=1)\n"
             "try:\n    dist.distributed_c10d._set_pg_timeout(datetime.timedelta(seconds=60))\n"
             "finally:\n    dist.destroy_process_group()\n",
    "TU642": "import torch\nimport torch.distributed as dist\n"
             "dist.init_process_group('gloo', store=dist.HashStore(), rank=0, world_size=1)\n"
             "try:\n    dist.gather_into_tensor(torch.ones(2), torch.empty(2), dst=0)\n"
             "finally:\n    dist.destroy_process_group()\n",
    "TU643": "import torch.distributed as dist\ndist.ProcessGroup._set_sequence_number_for_group\n",
    "TU317": "from torch.cuda.green_contexts import GreenContext\n"
             "GreenContext.set_context(object())  # warns before it looks at the (here fake) context: no GPU needed\n",
    "TU318": ("import torch.cuda.green_contexts as gc\ngc.SUPPORTED\n", "from torch.cuda.green_contexts import SUPPORTED\n"),
    "TU908": ("from torch.utils.cpp_extension import FileBaton\n",
              "import torch.utils.cpp_extension as cpp_ext\ncpp_ext.FileBaton\n"),
    "TU909": "import numpy as np\nimport torch\ntorch.nn.Softmax(dim=np.int64(1))\n",
    "TU910": "import torch\ntorch.nn.functional.lp_pool1d(torch.ones(1, 1, 4), 0, 2)\n",
    "TU911": "import io\nimport torch\nbuffer = io.BytesIO()\ntorch.save(torch.eye(3).to_sparse(), buffer)\nbuffer.seek(0)\n"
             "torch.load(buffer)\n",
    "TU912": "import torch\nfrom torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts\n"
             "def policy(ctx, op, *args, **kwargs):\n    return CheckpointPolicy.MUST_SAVE\n"
             "x = torch.ones(3, requires_grad=True)\n"
             "with torch.autograd.graph.save_on_cpu():\n"
             "    y = checkpoint(lambda t: (t * 2).sin(), x, use_reentrant=False,\n"
             "                   context_fn=lambda: create_selective_checkpoint_contexts(policy))\n"
             "y.sum().backward()\n",
    "TU444": "import torch._inductor.config as inductor_config\ninductor_config.cuda.nvgemm_max_profiling_configs = 3\n",
    "TU445": "import torch._inductor.config as inductor_config\ninductor_config.partitioned_scatter_memory_budget = 0.5\n",
    "TU811": "import warnings\nimport torch\nwith warnings.catch_warnings():\n"
             "    warnings.simplefilter('ignore')  # torch.jit.script's own warning is TU804's\n"
             "    scripted = torch.jit.script(torch.nn.Linear(2, 2))\n"
             "scripted._save_to_buffer_for_lite_interpreter()\n",
    "TU446": ("import torch.fx.experimental.optimization as fx_opt\nfx_opt.mkldnn_map\n",
              "from torch.fx.experimental.optimization import mkldnn_map\n"),
    # ------------------------------------------------------------------ 2.15 (texts checked on torch 2.15.0)
    "TU970": "import torch\nconfig = torch.profiler._ExperimentalConfig(adjust_profiler_step=True)\n"
             "with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], "
             "experimental_config=config):\n    torch.ones(2) * 2\n",
    "TU971": "import torch\ntorch.autograd.profiler.EnforceUnique()\n"
             "torch.autograd.profiler.load_nvprof('/nonexistent/trace.prof')\n",
    "TU972": "import torch\nwith torch.autograd.profiler.profile() as prof:\n    torch.ones(3) * 2\n"
             "prof.function_events[0].event_metadata\n",
    "TU973": "import torch\ntorch.cuda.graph_annotations.clear_kernel_annotations()\n",
    "TU976": "import torch\ntorch.optim.SGD({torch.nn.Parameter(torch.ones(2))}, lr=0.1)\n",
    "TU634": "import torch.distributed.checkpoint._fsspec_filesystem\n",
    "TU635": "import torch.distributed.config as dist_config\ndist_config.pipeline_per_direction_p2p = True\n",
    "TU432": "import torch._inductor.config as inductor_config\ninductor_config.use_mixed_mm = True\n"
             "inductor_config.mixed_mm_choice = 'aten'\n",
    "TU433": "import torch._inductor.config as inductor_config\ninductor_config.benchmark_epilogue_fusion = True\n",
    "TU975": "import importlib\nimport torch\nimportlib.reload(torch)\n",  # last: it re-runs torch/__init__.py's head
}

# Runs in the subprocess: {"TU123": [snippet, ...]} on stdin, {"TU123": [text, ...]} in the file it is given.
RUNNER = r'''
import json
import sys
import warnings

import torch

torch.set_warn_always(True)
snippets = json.loads(sys.stdin.read())
said = {}
for rule, codes in snippets.items():
    texts = said[rule] = []
    for index, code in enumerate(codes):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                exec(compile(code, f"<{rule} snippet {index}>", "exec"), {"__name__": "__snippet__"})
            except BaseException as error:  # noqa: BLE001 (what torch raised is what we want)
                texts.append(f"{type(error).__name__}: {error}")
        texts.extend(str(warning.message) for warning in caught)
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump(said, out)
'''

RULES = load_rules()
WITH_TEXTS = sorted(rule.id for rule in RULES if rule.runtime)


def _codes(snippet: Snippet) -> list[str]:
    return [snippet] if isinstance(snippet, str) else list(snippet)


@pytest.fixture(scope="module")
def said(tmp_path_factory) -> dict[str, list[str]]:
    """What torch said while each rule's snippet ran, all of them in one process."""
    out = tmp_path_factory.mktemp("runtime-texts") / "said.json"
    payload = json.dumps({rule: _codes(snippet) for rule, snippet in SNIPPETS.items()})
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(out)], input=payload, capture_output=True,
                          text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(out.read_text(encoding="utf-8"))


def test_every_rule_with_runtime_texts_has_a_snippet():
    assert WITH_TEXTS, "no rule has runtime texts"
    assert sorted(set(WITH_TEXTS) - set(SNIPPETS)) == []
    assert sorted(set(SNIPPETS) - set(WITH_TEXTS)) == [], "snippets of rules without runtime texts"


def _installed() -> Optional[Version]:
    try:
        return parse_version(importlib.metadata.version("torch"))
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None


# deprecations a later torch withdrew (the rules' why says so): from that release its texts are gone
WITHDRAWN = {"TU623": Version("2.15"), "TU642": Version("2.15")}  # pytorch#193874: aliases without a warning


def _expected(rule: Rule, installed: Optional[Version]) -> str:
    """How many of a rule's texts the installed torch must show, from the rule's versions.

    ``none``: the rule's change comes after the installed torch (its first version is newer), so none of
    its texts exist yet, or a later torch withdrew the deprecation (``WITHDRAWN``). ``some``: the rule spans a deprecation and a removal (texts of two periods: the
    warning, then the error) or one of its versions is newer than the installed torch, so the texts of
    one period are there and each one that is shown must still be the rule's alone. ``all``: otherwise.
    """
    if installed is None:
        return "all"
    if rule.trigger > installed or (rule.id in WITHDRAWN and installed >= WITHDRAWN[rule.id]):
        return "none"
    versions = [v for v in (rule.deprecated, rule.removed, rule.changed) if v is not None]
    if (rule.deprecated is not None and rule.removed is not None) or any(v > installed for v in versions):
        return "some"
    return "all"


@pytest.mark.parametrize("rule_id", WITH_TEXTS)
def test_runtime_texts_match_what_torch_says(rule_id, said):
    rule = RULES.by_id(rule_id)
    assert rule is not None
    texts = said[rule_id]
    expected = _expected(rule, _installed())
    if expected == "none":
        pytest.skip(f"{rule_id}'s texts are torch {rule.trigger}'s" + (f" to {WITHDRAWN[rule_id]}'s (withdrawn there)"
                                                                       if rule_id in WITHDRAWN else " and later"))
    shown = [pattern for pattern in rule.runtime if any(re.search(pattern, text) for text in texts)]
    if expected == "all":
        missing = [pattern for pattern in rule.runtime if pattern not in shown]
        assert not missing, f"{rule_id}: {missing!r} match nothing its snippet made torch say: {texts!r}"
    else:
        assert shown, f"{rule_id}: none of its texts matches what its snippet made torch say: {texts!r}"
    for other in RULES:
        if other.id == rule_id:
            continue
        for pattern in other.runtime:
            hits = [text for text in texts if re.search(pattern, text)]
            assert not hits, f"{other.id}'s {pattern!r} matches what {rule_id}'s snippet made torch say: {hits!r}"
    for text in texts:
        if any(re.search(pattern, text) for pattern in rule.runtime):
            found = match_rule({"message": text}, RULES)
            assert found is not None and found.id == rule_id, (text, found and found.id)
