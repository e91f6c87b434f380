"""Differential tests of the torchvision rules' rewrites and advice, on the installed torchvision.

The old and the new form run on the same inputs where both still exist: the functional_tensor /
functional_pil kernels (private ``_functional_tensor`` / ``_functional_pil`` since 0.17, the very code the
removed modules re-exported) against the public functions TUV023 rewrites them to; ``v2.ToTensor`` and
``v2.functional.to_tensor`` against the replacements TUV024/TUV025 write (equal for 8-bit inputs, not for
tensors or float arrays: why the fix is unsafe); MNIST's legacy attributes against ``.data``/``.targets``
(TUV027) on a tiny dataset written here; ``get_image_size`` against ``get_size`` (TUV026's advice); the
antialias default (TUV030's message); make_grid's ``value_range=`` (TUV036). Every rename target of the
torchvision rules must exist.

This module imports neither torch_upgrade nor anything beyond torch, torchvision, NumPy and PIL, so it runs
in an environment with torchvision (``/work/venvtv``: torch 2.14.1, torchvision 0.29.1) as well as here; it
is skipped where torchvision is not installed (CI has torch only).
"""

from __future__ import annotations

import struct
try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]
import warnings
from pathlib import Path

import pytest

torchvision = pytest.importorskip("torchvision")
torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
PIL_Image = pytest.importorskip("PIL.Image")

NO_DIFFERENTIAL = {
    "TUV004": "model_urls[NAME] and NAME_Weights.IMAGENET1K_V1.url are the same string in torchvision 0.13-0.14, "
              "the releases with both (read from those wheels); the dicts are gone from 0.15 on",
    "TUV005": "the video model_urls entries are the KINETICS400_V1 weights' urls (torchvision 0.13-0.29 sources); "
              "the rewrite reads the same string",
    "TUV020": "torchvision.models.utils re-exported torch.hub.load_state_dict_from_url itself (the 0.7.0 and 0.8.2 "
              "wheels): the same function under its own name; the module is gone from 0.11",
    "TUV028": "torchvision.datapoints (0.15) and tv_tensors (0.16) exist in no common release; the renamed "
              "classes' constructors were compared between the two wheels' sources",
    "TUV029": "the v2 beta names (0.15) and their stable names (0.16+) exist in no common torchvision release; "
              "test_rename_targets_exist checks every target on 0.29.1",
    "TUV032": "set_video_backend is a no-op from torchvision 0.26 (its body is pass; requires): deleting the "
              "call changes nothing a release computes from the window's floor on",
}

from torchvision.transforms import _functional_pil as old_pil  # noqa: E402  (the kernels functional_pil re-exported)
from torchvision.transforms import _functional_tensor as old_tensor  # noqa: E402
from torchvision.transforms import functional as F  # noqa: E402
from torchvision.transforms import v2  # noqa: E402
from torchvision.transforms.v2 import functional as F2  # noqa: E402

RULES = Path(__file__).resolve().parent.parent / "rules" / "torchvision"


def _rule(rule_id: str) -> dict:
    for path in RULES.glob("*.toml"):
        for rule in tomllib.loads(path.read_text(encoding="utf-8")).get("rule", []):
            if rule["id"] == rule_id:
                return rule
    raise KeyError(rule_id)


def _renamed(rule_id: str, module: str) -> list[str]:
    """The names of ``module`` that the rule renames to torchvision.transforms.functional."""
    out = []
    for old, new in _rule(rule_id)["rename"].items():
        if old.rsplit(".", 1)[0] == module:
            assert new == "torchvision.transforms.functional." + old.rsplit(".", 1)[1]
            out.append(old.rsplit(".", 1)[1])
    return out


def _image(seed: int = 0) -> "torch.Tensor":
    return torch.randint(0, 256, (3, 9, 7), dtype=torch.uint8, generator=torch.Generator().manual_seed(seed))


# arguments after the image for each renamed kernel (a float image where the kernel wants one)
TENSOR_CALLS = {
    "convert_image_dtype": ((torch.float32,), False),
    "vflip": ((), False), "hflip": ((), False),
    "crop": ((1, 2, 5, 4), False),
    "rgb_to_grayscale": ((3,), False),
    "adjust_brightness": ((1.3,), True), "adjust_contrast": ((0.7,), True),
    "adjust_hue": ((0.1,), True), "adjust_saturation": ((1.5,), True), "adjust_gamma": ((0.8, 1.2), True),
    "pad": (([1, 2, 3, 4], 5, "constant"), False),
}
PIL_CALLS = {
    "hflip": (), "vflip": (), "adjust_brightness": (1.3,), "adjust_contrast": (0.7,), "adjust_saturation": (1.5,),
    "adjust_hue": (0.1,), "pad": ([1, 2, 3, 4], 5, "constant"), "crop": (1, 2, 5, 4),
}


def test_every_functional_tensor_rename_is_checked_here():
    assert sorted(_renamed("TUV023", "torchvision.transforms.functional_tensor")) == sorted(TENSOR_CALLS)
    assert sorted(_renamed("TUV023", "torchvision.transforms.functional_pil")) == sorted(PIL_CALLS)


@pytest.mark.differential("TUV023")
@pytest.mark.parametrize("name", sorted(TENSOR_CALLS))
@pytest.mark.parametrize("seed", [0, 1])
def test_functional_tensor_kernel_and_public_function_agree(name, seed):
    args, as_float = TENSOR_CALLS[name]
    image = _image(seed)
    if as_float:
        image = image.float() / 255
    old = getattr(old_tensor, name)(image.clone(), *args)
    new = getattr(F, name)(image.clone(), *args)
    assert old.dtype == new.dtype and torch.equal(old, new)


@pytest.mark.differential("TUV023")
@pytest.mark.parametrize("name", sorted(PIL_CALLS))
def test_functional_pil_kernel_and_public_function_agree(name):
    image = PIL_Image.fromarray(_image().permute(1, 2, 0).numpy(), mode="RGB")
    old = getattr(old_pil, name)(image, *PIL_CALLS[name])
    new = getattr(F, name)(image, *PIL_CALLS[name])
    assert old.mode == new.mode and old.size == new.size and old.tobytes() == new.tobytes()


def _to_tensor_pair(inpt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = v2.ToTensor()(inpt)
        old_f = F2.to_tensor(inpt)
    new = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])(inpt)
    new_f = F2.to_dtype(F2.to_image(inpt), torch.float32, scale=True)
    return old, old_f, new, new_f


@pytest.mark.differential("TUV024", "TUV025")
@pytest.mark.parametrize("mode", ["RGB", "L", "RGBA"])
def test_to_tensor_rewrite_matches_for_8_bit_images(mode):
    array = _image().permute(1, 2, 0).numpy()
    inputs = [PIL_Image.fromarray(array, mode="RGB").convert(mode), array]
    for inpt in inputs:
        old, old_f, new, new_f = _to_tensor_pair(inpt)
        for a, b in ((old, new), (old_f, new_f)):
            assert b.dtype == a.dtype == torch.float32 and b.shape == a.shape
            # ToTensor divides by 255, ToDtype(scale=True) too: "equivalent up to float precision"
            assert torch.allclose(a, b, rtol=0, atol=1e-7)
            assert isinstance(b, torchvision.tv_tensors.Image)


def test_to_tensor_rewrite_differs_for_tensors_and_float_arrays():
    """Why TUV024/TUV025 are unsafe: ToTensor passes a tensor through (to_tensor rejects it) where the
    replacement scales it, and keeps a float64 array's dtype."""
    tensor = _image()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = v2.ToTensor()(tensor)
        with pytest.raises(TypeError):
            F2.to_tensor(tensor)
    new = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])(tensor)
    assert old is tensor and new.dtype == torch.float32 and float(new.max()) <= 1.0
    array = np.linspace(0, 3, 2 * 3 * 3).reshape(2, 3, 3)
    old, _, new, _ = _to_tensor_pair(array)
    assert old.dtype == torch.float64 and new.dtype == torch.float32
    wide = PIL_Image.fromarray(np.full((2, 2), 1000, dtype=np.int32), mode="I")  # a 32-bit PIL mode
    old, _, new, _ = _to_tensor_pair(wide)
    assert old.dtype == torch.int32 and int(old[0, 0, 0]) == 1000  # not scaled
    assert new.dtype == torch.float32 and float(new[0, 0, 0]) < 1e-6  # scaled by 1 / (2**31 - 1)


def _write_mnist(root: Path, name: str) -> None:
    raw = root / name / "raw"
    raw.mkdir(parents=True)
    for split, count in (("train", 3), ("t10k", 2)):
        images = bytes(i % 256 for i in range(count * 28 * 28))
        with open(raw / f"{split}-images-idx3-ubyte", "wb") as f:
            f.write(struct.pack(">IIII", 2051, count, 28, 28) + images)
        with open(raw / f"{split}-labels-idx1-ubyte", "wb") as f:
            f.write(struct.pack(">II", 2049, count) + bytes(range(count)))


@pytest.mark.differential("TUV027")
@pytest.mark.parametrize("name", ["MNIST", "FashionMNIST", "KMNIST"])
@pytest.mark.parametrize("train", [True, False])
def test_mnist_legacy_attributes_are_data_and_targets(tmp_path, name, train):
    _write_mnist(tmp_path, name)
    dataset = getattr(torchvision.datasets, name)(str(tmp_path), train=train)
    renames = _rule("TUV027")["rename"]
    for old in ("train_data", "test_data", "train_labels", "test_labels"):
        new = renames[f"torchvision.datasets.{name}.{old}"].rsplit(".", 1)[1]
        with pytest.warns(UserWarning, match="renamed"):
            value = getattr(dataset, old)
        assert value is getattr(dataset, new)
    assert len(dataset.data) == (3 if train else 2)


def test_get_image_size_is_get_size_reversed():
    """TUV026's advice: get_size(x)[::-1] is what get_image_size returned."""
    image = torch.zeros(3, 5, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = F2.get_image_size(image)
    assert old == [8, 5] and F2.get_size(image) == [5, 8] and F2.get_size(image)[::-1] == old


def test_antialias_default_changes_tensors_not_pil():
    """TUV030's message: the default antialias=True gives other numbers for tensors (antialias=False
    is the old output); PIL images are antialiased either way."""
    image = torch.rand(3, 64, 64, generator=torch.Generator().manual_seed(0))
    default = F.resize(image, [16, 16])
    assert torch.equal(default, F.resize(image, [16, 16], antialias=True))
    assert not torch.allclose(default, F.resize(image, [16, 16], antialias=False))
    pil = PIL_Image.fromarray((image.permute(1, 2, 0).numpy() * 255).astype(np.uint8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Anti-alias option is always applied for PIL Image input"
        assert F.resize(pil, [16, 16]).tobytes() == F.resize(pil, [16, 16], antialias=False).tobytes()


@pytest.mark.differential("TUV036")
def test_make_grid_value_range_is_what_range_meant():
    """TUV036's rewrite: value_range= scales by the range given (what range= did on 0.9-0.13, where it was read
    into value_range), not by the images' own min and max; range= itself is a TypeError from 0.16 on, from
    make_grid and from save_image (which passes its keywords on). 0.9-0.13 need torch <= 1.12, so the old
    keyword's own output is read from those wheels, not run here."""
    from torchvision.utils import make_grid, save_image
    images = torch.rand(2, 3, 4, 4, generator=torch.Generator().manual_seed(0)) * 0.5  # within [0, 0.5]
    grid = make_grid(images, nrow=2, padding=0, normalize=True, value_range=(-1, 1))
    expected = make_grid(((images + 1) / 2).clamp(0, 1), nrow=2, padding=0)
    assert torch.allclose(grid, expected)
    own = make_grid(images, nrow=2, padding=0, normalize=True)  # what 0.14-0.15 gave, range= ignored
    assert not torch.allclose(grid, own)
    with pytest.raises(TypeError, match="range"):
        make_grid(images, normalize=True, range=(-1, 1))
    with pytest.raises(TypeError, match="range"):
        save_image(images, "unused.png", normalize=True, range=(-1, 1))


def _exists(qualname: str) -> bool:
    module, _, rest = qualname.partition(".")
    obj = __import__(module)
    for part in rest.split("."):
        if not hasattr(obj, part):
            __import__(f"{obj.__name__}.{part}")
        obj = getattr(obj, part)
    return True


@pytest.mark.parametrize("rule_id", ["TUV020", "TUV023", "TUV027", "TUV028", "TUV029"])
def test_rename_targets_exist(rule_id):
    for new in _rule(rule_id)["rename"].values():
        if new.startswith("torchvision.datasets.") and new.count(".") == 3:  # a class's attribute: an instance's
            continue
        assert _exists(new), new


@pytest.mark.differential("TUV003")
@pytest.mark.parametrize("module, name, backbone", [
    ("", "resnet18", False), ("", "vgg11", False), ("", "mobilenet_v3_small", False),
    ("detection", "fasterrcnn_mobilenet_v3_large_fpn", True), ("segmentation", "lraspp_mobilenet_v3_large", True),
])
def test_pretrained_false_and_weights_none_build_the_same_model(module, name, backbone):
    """TUV003's fix: a builder chosen by name with pretrained=False (pretrained_backbone=False) builds, from
    the same seed, the very model weights=None (weights_backbone=None) does: no weights either way."""
    owner = getattr(torchvision.models, module) if module else torchvision.models
    old_kw = {"pretrained": False, **({"pretrained_backbone": False} if backbone else {})}
    new_kw = {"weights": None, **({"weights_backbone": None} if backbone else {})}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pretrained= is deprecated: what the rule is about
        torch.manual_seed(0)
        old = getattr(owner, name)(**old_kw).state_dict()
    torch.manual_seed(0)
    new = getattr(owner, name)(**new_kw).state_dict()
    assert old.keys() == new.keys()
    assert all(torch.equal(old[key], new[key]) for key in old)
