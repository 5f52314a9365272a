"""Files: mechanism matrices (CSV/JSON), problem files (TOML) and the built-in problem
files (:func:`load_example`)."""

from .._lazy import lazy_exports

_NAMES = {
    "csv_numbers": ".matrices",
    "csv_rows": ".matrices",
    "euclidean_grid": ".problems",
    "example_names": ".examples",
    "example_path": ".examples",
    "example_titles": ".examples",
    "Expected": ".problems",
    "grid_graph": ".problems",
    "load_example": ".examples",
    "load_mechanism": ".matrices",
    "load_problem": ".problems",
    "loads_problem": ".problems",
    "mechanism_from_dict": ".matrices",
    "mechanism_to_jsonable": ".matrices",
    "path_graph": ".problems",
    "problem_from_dict": ".problems",
    "ProblemFile": ".problems",
    "read_text_limited": ".matrices",
    "save_mechanism": ".matrices",
}

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
__all__ = sorted(_NAMES)
