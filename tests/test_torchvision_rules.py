"""torchvision's rules TUV020-TUV036 beyond their examples: what they never flag (modern code, other
libraries' same-named APIs, compatibility code), which library and release their findings name, and the
windows they fire in. The rewrites themselves run in tests/test_differential_torchvision.py (where
torchvision is installed)."""

from __future__ import annotations

import pytest

import torch_upgrade
from helpers import scan_code
from torch_upgrade.catalog.ruledata import load_rules

RULES = load_rules()
MINE = [r for r in RULES if r.library == "torchvision" and "020" <= r.id[3:] <= "099"]

MODERN = '''
import torch
import torchvision
from torch.hub import load_state_dict_from_url
from torchvision import tv_tensors
from torchvision.datasets import MNIST
from torchvision.transforms import InterpolationMode, v2
from torchvision.transforms import functional as F
from torchvision.transforms.v2 import functional as F2
from torchcodec.decoders import VideoDecoder, decode_image

state = load_state_dict_from_url(url)
gray = F.rgb_to_grayscale(img)
transform = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True), v2.SanitizeBoundingBoxes()])
h, w = F2.get_size(img)
boxes = tv_tensors.BoundingBoxes(b, format="XYXY", canvas_size=(h, w))
resize = v2.Resize(256, antialias=True)
nearest = F.resize(img, [32, 32], interpolation=InterpolationMode.NEAREST)
ds = MNIST(root, train=True)
images, labels = ds.data, ds.targets
frames = VideoDecoder(path).get_frames_played_in_range(0.0, 1.0).data
img = decode_image(path)
grid = torchvision.utils.make_grid(img, normalize=True, value_range=(-1, 1))
'''

OTHERS = '''
import decord
import cv2
from PIL import Image
import imageio

class MNISTLike:
    def __init__(self):
        self.train_data, self.train_labels = load()

def read_video(path):
    return decord.VideoReader(path)

def get_image_size(img):
    return img.size

def to_tensor(x):
    return x

ds = MNISTLike()
x = ds.train_data
video = read_video(path)
size = get_image_size(Image.open(path))
pic = Image.open(path).resize((64, 64))
frames = imageio.mimread(path)
cap = cv2.VideoCapture(path)
'''

GUARDED = '''
import torchvision
from packaging import version

if version.parse(torchvision.__version__) < version.parse("0.17"):
    from torchvision.transforms.functional_tensor import rgb_to_grayscale
else:
    from torchvision.transforms.functional import rgb_to_grayscale

try:
    from torchvision.io import read_video
except ImportError:
    read_video = None

if hasattr(torchvision, "tv_tensors"):
    from torchvision import tv_tensors
else:
    from torchvision import datapoints as tv_tensors

if hasattr(torchvision.transforms.v2, "ToImage"):
    to_image = torchvision.transforms.v2.ToImage()
else:
    to_image = torchvision.transforms.v2.ToImageTensor()
'''


def _findings(tmp_path, code, low="1.6", high="2.15"):
    result, _ = scan_code(tmp_path, code, low=low, high=high, select=("TUV",))
    assert not result.errors, result.errors
    return [(f.rule_id, f.line) for f in result.findings if f.rule_id in {r.id for r in MINE}]


def test_the_rules_are_torchvision_s():
    assert len(MINE) == 17
    for rule in MINE:
        assert rule.file.startswith("torchvision/") and rule.references, rule.id


@pytest.mark.parametrize("code", [MODERN, OTHERS, GUARDED], ids=["modern", "other-libraries", "guarded"])
def test_never_flagged(tmp_path, code):
    assert _findings(tmp_path, code) == []


def test_findings_name_torchvision_and_its_release(tmp_path):
    code = "from torchvision.transforms.functional_tensor import rgb_to_grayscale\n"
    result, _ = scan_code(tmp_path, code, low="1.13", high="2.15", select=("TUV023",))
    (finding,) = result.findings
    assert finding.library == "torchvision" and str(finding.release) == "0.17"
    assert finding.severity == "error"


@pytest.mark.parametrize("low, high, expected", [
    ("2.1", "2.15", 1),   # torchvision 0.16 -> 0.29 crosses 0.17
    ("2.2", "2.15", 0),   # already 0.17
    ("1.13", "2.1", 0),   # up to 0.16 only
])
def test_the_antialias_change_fires_only_across_0_17(tmp_path, low, high, expected):
    code = "from torchvision import transforms\nt = transforms.Resize(256)\n"
    assert len(_findings(tmp_path, code, low, high)) == expected


def test_the_antialias_rule_skips_calls_that_choose(tmp_path):
    code = ("from torchvision import transforms\nfrom torchvision.transforms import functional as F\n"
            "a = transforms.Resize(256, transforms.InterpolationMode.BILINEAR, None, False)\n"
            "b = F.resize(img, [8, 8], 'nearest')\n"
            "c = F.resized_crop(img, 0, 0, 4, 4, [8, 8], antialias=None)\n"
            "d = transforms.RandomResizedCrop(224, interpolation=transforms.InterpolationMode.NEAREST_EXACT)\n")
    assert _findings(tmp_path, code, "2.1") == []


PIL_INPUTS = '''
import PIL.Image
from PIL import Image
import torchvision.transforms.functional as F


def square(img: PIL.Image.Image, size: int) -> PIL.Image.Image:
    return F.resize(img, (size, size))


def load(path, size):
    img = Image.open(path).convert("RGB")
    return F.resized_crop(img, 0, 0, 8, 8, [size, size])


def direct(path):
    return F.resize(Image.open(path), [8, 8])


def unknown(img, size):
    return F.resize(img, [size, size])
'''


def test_the_antialias_rule_skips_images_evidently_pil(tmp_path):
    """PIL images were always antialiased (rf-detr: a parameter annotated PIL.Image.Image, what
    Image.open(...).convert("RGB") makes): only the call whose image nothing is known of is reported."""
    assert _findings(tmp_path, PIL_INPUTS, "2.1") == [("TUV030", 21)]


def test_the_v2_beta_advice_names_the_replacement(tmp_path):
    code = ("from torchvision.transforms.v2 import functional as F\n"
            "y = F.convert_dtype_image_tensor(img, torch.float32)\n"
            "b = F.resize_bounding_box(boxes, spatial_size=(4, 4), size=[8, 8])\n")
    result, _ = scan_code(tmp_path, code, low="2.1", high="2.15", select=("TUV029",))
    messages = {f.line: f.message for f in result.findings}
    assert "to_dtype_image(image, dtype, scale=True)" in messages[2]
    assert "resize_bounding_boxes" in messages[3] and "canvas_size" in messages[3]
    assert all(f.fix is None for f in result.findings if f.line > 1)


def test_to_tensor_fix_is_unsafe_even_above_0_16(tmp_path):
    code = "import torch\nfrom torchvision.transforms import v2\nt = v2.ToTensor()\n"
    result, _ = scan_code(tmp_path, code, low="2.5", high="2.15", select=("TUV024",))
    (finding,) = result.findings
    assert finding.fix is not None and finding.fix.safety == "unsafe"
    assert "8-bit" in finding.fix.reason


def test_a_package_import_is_no_line_of_the_migration(tmp_path):
    """`import torchvision` stays when the only use it serves goes (the package is imported for everything)."""
    code = "import torchvision\nframes, _, info = torchvision.io.read_video(path)\n"
    assert _findings(tmp_path, code) == [("TUV031", 2)]


def test_video_backend_deletion_keeps_computed_arguments(tmp_path):
    code = "import torchvision\ntorchvision.set_video_backend(choose())\n"
    result, _ = scan_code(tmp_path, code, low="2.11", high="2.15", select=("TUV032",))
    (finding,) = result.findings
    assert finding.fix is None


# ------------------------------------------------------------------ compatibility code of real projects
TRANSFORMERS_VIDEO = '''
from torchvision import io as torchvision_io
from .utils import is_torchvision_video_decoding_available


def read_video_torchvision(video_path):
    if not is_torchvision_video_decoding_available():
        raise ImportError("torchvision video decoding is not available")
    video, _, info = torchvision_io.read_video(video_path, pts_unit="sec")
    return video
'''

TRANSFORMERS_IMAGE = '''
from .utils import is_torchcodec_greater_or_equal


def load(path):
    if is_torchcodec_greater_or_equal("0.16.0"):
        from torchcodec.decoders import decode_image
    else:
        from torchvision.io import decode_image
    return decode_image(path)
'''


@pytest.mark.parametrize("code", [TRANSFORMERS_VIDEO, TRANSFORMERS_IMAGE], ids=["feature-probe-exit", "torchcodec-version"])
def test_fallbacks_to_an_old_torchvision_are_compatibility_code(tmp_path, code):
    """transformers 5.24: a function that refuses unless a torchvision feature only old releases have is
    present runs only there (unlike a version requirement, which every newer release meets); a torchcodec
    version check's else-branch is the fallback to torchvision's I/O."""
    result, _ = scan_code(tmp_path, code, low="2.2", high="2.15", select=("TUV",))
    assert [(f.rule_id, f.line) for f in result.findings] == []
    unguarded = code.replace("if not is_torchvision_video_decoding_available():", "if False:") \
        .replace('if is_torchcodec_greater_or_equal("0.16.0"):', "if unknown():")
    result, _ = scan_code(tmp_path, unguarded, low="2.2", high="2.15", select=("TUV",))
    assert {f.rule_id for f in result.findings} & {"TUV031", "TUV035"}


def test_the_antialias_rule_skips_what_to_pil_image_makes(tmp_path):
    """segment-anything's ResizeLongestSide: resize(to_pil_image(image), size) resizes a PIL image (always
    antialiased, unchanged by 0.17); v2's to_pil_image too, and the name it bound stays PIL. A tensor
    through to_tensor is still reported."""
    code = '''
from torchvision.transforms.functional import resize, to_pil_image, to_tensor
from torchvision.transforms.v2 import functional as F2


def apply_image(image, size):
    return resize(to_pil_image(image), size)


def v2(image, size):
    pil = F2.to_pil_image(image)
    return F2.resize(pil, [size, size])


def tensor(image, size):
    return resize(to_tensor(image), size)
'''
    assert _findings(tmp_path, code, "2.1") == [("TUV030", 16)]


def test_the_antialias_rule_skips_a_step_appended_before_to_tensor(tmp_path):
    """generative-models' demo builds its pipeline with append: a Resize appended (under an if) before a
    ToTensor appended unconditionally resizes PIL images; a ToTensor appended only under another if, or
    before the Resize, proves nothing."""
    code = '''
from torchvision import transforms


def load(image, size, center_crop):
    steps = []
    if size is not None:
        steps.append(transforms.Resize(size))
    if center_crop:
        steps.append(transforms.CenterCrop(size))
    steps.append(transforms.ToTensor())
    return transforms.Compose(steps)(image)


def maybe(image, size, to_tensor):
    steps = []
    steps.append(transforms.Resize(size))
    if to_tensor:
        steps.append(transforms.ToTensor())
    return transforms.Compose(steps)(image)


def after(image, size):
    steps = []
    steps.append(transforms.ToTensor())
    steps.append(transforms.Resize(size))
    return transforms.Compose(steps)(image)
'''
    assert _findings(tmp_path, code, "2.1") == [("TUV030", 17), ("TUV030", 26)]


def test_make_grid_range_inside_a_lambda_is_renamed_in_place(tmp_path):
    """range= passed to make_grid in a lambda mapped over several batches, spaced as its author wrote it: the
    keyword alone becomes value_range (a torchvision 0.9 floor), the rest of the line is kept."""
    code = ("from torchvision.utils import make_grid\n"
            "a, b = map(lambda t: make_grid(t.float(), nrow = 4, normalize = True, range = (-1, 1)), (x, y))\n")
    result, _ = scan_code(tmp_path, code, low="1.8", high="2.15", select=("TUV036",))
    (finding,) = result.findings
    assert finding.severity == "error" and str(finding.release) == "0.14" and finding.fix.safety == "safe"
    assert "TypeError" in finding.message and "ignore it" in finding.message
    (tmp_path / "mod.py").write_text(code, encoding="utf-8")
    torch_upgrade.fix([tmp_path / "mod.py"], from_version="1.8", select=["TUV036"])
    assert (tmp_path / "mod.py").read_text(encoding="utf-8") == code.replace("range = (-1, 1)", "value_range = (-1, 1)")


def test_make_grid_range_is_a_deprecation_while_the_window_stays_below_0_14(tmp_path):
    code = "import torchvision\ng = torchvision.utils.save_image(x, 'a.png', normalize=True, range=(0, 1))\n"
    result, _ = scan_code(tmp_path, code, low="1.8", high="1.12", select=("TUV036",))
    (finding,) = result.findings
    assert finding.severity == "warning" and finding.fix is not None


def test_mnist_legacy_attribute_read_off_the_constructor_call(tmp_path):
    """A dataset built and read in one expression (an MNIST-M builder's `datasets.MNIST(root, train=True,
    download=True).train_labels`): the receiver is the constructor call itself, certainly an MNIST."""
    code = ("from torchvision import datasets\n"
            "labels = datasets.MNIST(root, train=True, download=True).train_labels\n"
            "images = datasets.FashionMNIST(root, train=False).test_data.float()\n"
            "other = make(root).train_labels\n")
    assert _findings(tmp_path, code) == [("TUV027", 2), ("TUV027", 3)]
    (tmp_path / "mod.py").write_text(code, encoding="utf-8")
    torch_upgrade.fix([tmp_path / "mod.py"], from_version="1.6", select=["TUV027"])
    fixed = (tmp_path / "mod.py").read_text(encoding="utf-8")
    assert ".targets\n" in fixed and ".data.float()" in fixed and "make(root).train_labels" in fixed


SIZE_READ = '''
import torchvision.transforms.functional as F


def scale(image, target, size):
    w, h = image.size
    return F.resize(image, [h // size, w // size]), target


def either(img, size):
    if hasattr(img, "shape"):
        h, w = img.shape[-2:]
    else:
        w, h = img.size
    return F.resize(img, [h // size, w // size])


def shape(img, size):
    n = img.size(0)
    return F.resize(img, size)


def rebound(img, size):
    w, h = img.size
    img = to_tensor(img)
    return F.resize(img, size)
'''


def test_the_antialias_rule_skips_an_image_whose_size_is_read_as_a_pair(tmp_path):
    """A detection pipeline's resize(image, target, size) reads image.size as (width, height) before
    F.resize(image, ...): a PIL image (a tensor's size is a method). Not where the read is conditional, where
    size is called, or where the name is bound again."""
    assert _findings(tmp_path, SIZE_READ, "2.1") == [("TUV030", 15), ("TUV030", 20), ("TUV030", 26)]
