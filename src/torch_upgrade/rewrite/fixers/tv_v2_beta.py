"""torchvision 0.15's beta names of transforms.v2 that 0.16 renamed (and dropped).

Where the new name takes the same parameters and does the same thing (``ToImageTensor`` ->
``ToImage``, ``resize_image_tensor`` -> ``resize_image``, ...), the rule's ``rename`` table says so and
``tv_rename`` rewrites it (``v2.ToImageTensor()`` -> ``v2.ToImage()``). The others changed more than their name; for them the finding's message
(an ``Advice``) says what to write instead.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import tv_rename
from torch_upgrade.syntax.analysis import Reference

_F = "torchvision.transforms.v2.functional."
_SCALE = "the 0.15 name always scaled the values, to_dtype only with scale=True"
_BOXES = ("takes bounding_boxes and canvas_size= where the 0.15 kernel took bounding_box and spatial_size=")
_PIL = ("the PIL kernels are private from 0.16: call the dispatcher {new}(image, ...), which takes PIL images, "
        "tensors and tv_tensors alike")

# old name -> what to write instead (for the names whose replacement is more than a rename)
ADVICE: dict[str, str] = {
    "torchvision.transforms.v2.ConvertDtype": "v2.ToDtype(dtype, scale=True) (ConvertDtype() meant "
                                              "ToDtype(torch.float32, scale=True): ToDtype has no default dtype)",
    _F + "convert_dtype": f"F.to_dtype(inpt, dtype, scale=True) ({_SCALE})",
    _F + "convert_dtype_image_tensor": f"F.to_dtype_image(image, dtype, scale=True) ({_SCALE})",
    _F + "convert_dtype_video": f"F.to_dtype_video(video, dtype, scale=True) ({_SCALE})",
    _F + "clamp_bounding_box": "F.clamp_bounding_boxes(inpt, format=..., canvas_size=...) (spatial_size= is now "
                               "canvas_size=)",
    _F + "get_spatial_size_image_tensor": "F.get_size_image(image)",
    _F + "get_spatial_size_image_pil": "F.get_size(image) (the PIL kernel is private from 0.16)",
    _F + "get_spatial_size_bounding_box": "F.get_size_bounding_boxes(bounding_boxes)",
}
for _op in ("affine", "center_crop", "crop", "elastic", "horizontal_flip", "pad", "perspective", "resize",
            "resized_crop", "rotate", "vertical_flip"):
    ADVICE[f"{_F}{_op}_bounding_box"] = f"F.{_op}_bounding_boxes(...), which {_BOXES}"
for _op in ("adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue", "adjust_saturation",
            "adjust_sharpness", "affine", "autocontrast", "center_crop", "crop", "elastic", "equalize", "erase",
            "five_crop", "gaussian_blur", "horizontal_flip", "invert", "pad", "perspective", "posterize", "resize",
            "resized_crop", "rotate", "solarize", "ten_crop", "vertical_flip"):
    ADVICE[f"{_F}{_op}_image_pil"] = _PIL.format(new=f"F.{_op}")
ADVICE[_F + "rgb_to_grayscale_image_pil"] = _PIL.format(new="F.rgb_to_grayscale")
ADVICE[_F + "get_dimensions_image_pil"] = _PIL.format(new="F.get_dimensions")
ADVICE[_F + "get_num_channels_image_pil"] = _PIL.format(new="F.get_num_channels")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    found = tv_rename.fix(ref, ctx)
    if found is not None or ref.ctx == "import" or ref.qualname is None:
        return found
    advice = ADVICE.get(ref.qualname)
    if advice is None:
        return None
    raise Advice(f"{ref.qualname} was a beta name of torchvision 0.15, gone from 0.16: write {advice} "
                 "(F = torchvision.transforms.v2.functional, torchvision >= 0.16)")
