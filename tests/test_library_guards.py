"""Checks of a library's version (``torchvision.__version__``, ``importlib.metadata.version("torchaudio")``):
evaluated at each torch release as the library release that pairs with it (``catalog.pairing``: the library's
wheels require that torch). A window's floor that decides one makes it a dead shim (TU980), removed by
``scan --fix`` and ``upgrade --to``; a check that does not keep a call away from the releases where it breaks
does not silence the call; where the pairing does not say which release an install has (torchtext after 2.3,
torchdata beside torch 2.5), the check stays undecided and keeps its code."""

from __future__ import annotations

from packaging.version import Version

import torch_upgrade
from shim_cases import Case, check_kept_below, check_scan_fix_removes_it, check_upgrade_removes_it, found, write
from torch_upgrade.catalog.pairing import load_pairing

WEIGHTS: Case = ("1.12", {"app/models.py": '''
    import torchvision
    from packaging import version


    def backbone():
        if version.parse(torchvision.__version__) >= version.parse("0.13"):
            return torchvision.models.resnet50(weights="IMAGENET1K_V1")
        return torchvision.models.resnet50(pretrained=True)
    '''}, "app/models.py", '''
    import torchvision


    def backbone():
        return torchvision.models.resnet50(weights="IMAGENET1K_V1")
    ''')

METADATA: Case = ("2.0", {"app/audio.py": '''
    from importlib.metadata import version

    import torchaudio

    if version("torchaudio") < "2.0":
        BACKEND = "sox_io"
    else:
        BACKEND = None
    '''}, "app/audio.py", '''
    import torchaudio

    BACKEND = None
    ''')


def test_a_torchvision_check_the_floor_decides_is_removed(tmp_path):
    check_scan_fix_removes_it(tmp_path, WEIGHTS)


def test_upgrade_removes_a_torchvision_check(tmp_path):
    check_upgrade_removes_it(tmp_path, WEIGHTS)


def test_a_torchvision_check_above_the_paired_floor_is_kept(tmp_path):
    check_kept_below(tmp_path, WEIGHTS, low="1.11")  # torch 1.11 pairs with torchvision 0.12


def test_a_library_version_read_by_distribution_name_is_decided(tmp_path):
    check_scan_fix_removes_it(tmp_path, METADATA)


def test_the_message_names_the_library_release(tmp_path):
    write(tmp_path, WEIGHTS[1])
    report = torch_upgrade.scan([tmp_path], from_version="1.12", select=["TU980"])
    assert [f.message for f in report.findings] == [
        "dead compatibility code: this if is true on every torch of the window (1.12 and later) and the torchvision "
        "paired with it (0.13 and later); keep the body"]


def test_an_assert_on_a_library_version_names_the_library_release(tmp_path):
    """An RoI layer's constructor asserts torchvision's version (detectron2's shape): the message names the
    torchvision release the window pairs; the torch assert beside it, under the same function's import of
    torchvision's ``__version__``, reads torch's only (the name after ``torch.`` is not that import)."""
    write(tmp_path, {"roi.py": '''
        import torch


        class RoIPool(torch.nn.Module):
            def __init__(self):
                super().__init__()
                from torchvision import __version__

                version = tuple(int(x) for x in __version__.split(".")[:2])
                assert version >= (0, 7), "needs torchvision >= 0.7"
                assert torch.__version__ >= "1.0"
        '''})
    report = torch_upgrade.scan([tmp_path], from_version="1.12", select=["TU980"])
    assert [f.message for f in report.findings] == [
        "dead compatibility code: this assert holds on every torch of the window (1.12 and later) and the "
        "torchvision paired with it (0.13 and later); remove it",
        "dead compatibility code: this assert holds on every torch of the window (1.12 and later); remove it"]


def test_a_torchvision_check_does_not_keep_a_removed_torch_call_away(tmp_path):
    write(tmp_path, {"ops.py": '''
        import torch
        import torchvision
        from packaging import version


        def factor(a):
            if version.parse(torchvision.__version__) >= version.parse("0.10"):
                return torch.cholesky(a)
            return torch.cholesky(a)
        '''})
    report = torch_upgrade.scan([tmp_path], from_version="1.8", to_version="2.14", select=["TU203"])
    # the first runs with torchvision 0.10 and later (torch 1.9 on, 2.14 included); the second on torch 1.8 alone
    assert [(f.line, f.message.endswith("(the check around it still lets it run on torch 2.14)"))
            for f in report.findings] == [(8, True)]


def test_a_library_rule_under_its_library_check(tmp_path):
    write(tmp_path, {"gray.py": '''
        import torchvision
        from packaging import version

        if version.parse(torchvision.__version__) >= version.parse("0.12"):
            from torchvision.transforms.functional_tensor import rgb_to_grayscale
        if version.parse(torchvision.__version__) < version.parse("0.15"):
            from torchvision.transforms.functional_tensor import rgb_to_grayscale as old
        '''})
    # gone from torchvision 0.17 (torch 2.2): the first import runs there, the second only before 0.15
    assert found(tmp_path, "1.8", to_version="2.14", select=["TUV023"]) == [("gray.py", "TUV023", 5)]
    assert found(tmp_path, "1.8", to_version="1.13", select=["TUV023"]) == []


def test_a_check_the_pairing_cannot_read_stays_undecided(tmp_path):
    files = {"text.py": '''
        import torchtext
        from packaging import version

        if version.parse(torchtext.__version__) >= version.parse("0.18"):
            LEGACY = False
        else:
            LEGACY = True
        ''', "data.py": '''
        import torchdata
        from packaging import version

        if version.parse(torchdata.__version__) >= version.parse("0.10"):
            NODES = True
        else:
            NODES = False
        '''}
    write(tmp_path, files)
    # torchtext has no release after 0.18 (torch 2.3): which one a newer install has is not known; torch 2.5 pairs
    # with torchdata 0.9 and 0.10 alike
    assert found(tmp_path, "2.3", select=["TU980"]) == []
    assert found(tmp_path, "2.5", to_version="2.5", select=["TU980"]) == []


def test_the_pairing_names_one_release_or_none():
    pairing = load_pairing()
    assert pairing.paired("torchvision", Version("2.0.1+cu121")) == Version("0.15")
    assert pairing.paired("torchaudio", Version("2.13")) == Version("2.11")
    assert pairing.paired("torchtext", Version("2.5")) is None  # torchtext ended at 0.18 (torch 2.3)
    assert pairing.paired("torchdata", Version("2.5")) is None  # 0.9 or 0.10
    assert pairing.paired("torchvision", Version("1.5")) is None  # before the table
    assert pairing.after_known("torchvision") == Version("1.0")  # a check of the minor alone goes wrong there
    assert pairing.after_known("torchaudio") == Version("3.0")
    assert pairing.after_known("torchtext") is None


def test_a_check_of_the_minor_alone_stays_undecided(tmp_path):
    write(tmp_path, {"misc.py": '''
        import torchvision

        if float(torchvision.__version__.split(".")[1]) < 7.0:
            from torchvision.ops import _new_empty_tensor
        '''})
    # false from torchvision 0.7 on, and true again on a torchvision 1.0
    assert found(tmp_path, "1.13", select=["TU980"]) == []
