"""Types of the C extension ``_kernels.c``: CFR's treeplex passes and segment reductions, written into ``out``."""

import numpy as np
import numpy.typing as npt

def sequence_form(
    parent: npt.NDArray[np.int64], behaviour: npt.NDArray[np.float64], out: npt.NDArray[np.float64]
) -> None: ...
def counterfactual_values(
    parent: npt.NDArray[np.int64],
    behaviour: npt.NDArray[np.float64],
    utility: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
) -> None: ...
def positive_part(bounds: npt.NDArray[np.int64], v: npt.NDArray[np.float64], out: npt.NDArray[np.float64]) -> None: ...
def regret(
    bounds: npt.NDArray[np.int64],
    x: npt.NDArray[np.float64],
    u: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
) -> None: ...
