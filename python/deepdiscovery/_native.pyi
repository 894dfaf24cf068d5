"""The native core (Rust, via PyO3). Use the `deepdiscovery` package instead."""

from typing import Any, Callable, Dict, List, Optional, Tuple, final

__all__ = [
    "PICTURE_ANCHOR_FILL",
    "PICTURE_FILE_FILL",
    "PICTURE_MAX_FILES",
    "PICTURE_MAX_RELATIONS",
    "Session",
    "cache_clear",
    "cache_info",
    "metrics_json",
    "package_svg",
    "schema_version",
    "score_task_json",
    "load_tasks_json",
    "check_task_json",
    "ensure_checkout",
    "version",
]

@final
class Session:
    def __new__(
        cls,
        root: Optional[str] = None,
        config_json: Optional[str] = None,
        files: Optional[Dict[str, str]] = None,
        llm: Optional[Tuple[Callable[[str], str], str, int]] = None,
        embedder: Optional[Tuple[Callable[[List[str]], Any], int]] = None,
    ) -> "Session": ...
    def graph(self) -> Dict[str, List[Tuple[Any, ...]]]: ...
    def locate_json(self, task: str, options_json: Optional[str] = None) -> str: ...
    def discover_json(self, task: str, options_json: Optional[str] = None) -> Tuple[str, str]: ...
    def eval_task_json(self, task_json: str, options_json: Optional[str] = None) -> str: ...
    @staticmethod
    def check_options(options_json: str) -> None: ...

def version() -> str: ...
def schema_version() -> int: ...
def score_task_json(
    gold: List[str], returned: List[str], ranking: List[str], cutoffs: List[int]
) -> str: ...
def load_tasks_json(path: str) -> str: ...
def check_task_json(task_json: str, at: str) -> str: ...
def ensure_checkout(task_json: str, checkouts: str, mirrors: str, with_history: bool) -> str: ...
def metrics_json(scores_json: str, cutoffs: List[int]) -> str: ...
def cache_info(cache_dir: Optional[str] = None) -> str: ...
def cache_clear(cache_dir: Optional[str] = None) -> int: ...
def package_svg(package_json: str) -> str: ...

PICTURE_MAX_FILES: int
PICTURE_MAX_RELATIONS: int
PICTURE_ANCHOR_FILL: str
PICTURE_FILE_FILL: str
