from typing import Any, Dict, List, Tuple

class DeepDiscoveryError(Exception): ...

class Session:
    def __init__(self, root: str) -> None: ...
    def graph(self) -> Dict[str, List[Tuple[Any, ...]]]: ...
    def locate_json(
        self,
        task: str,
        anchors: int = 8,
        no_sem: bool = False,
        no_sum: bool = False,
        no_rule: bool = False,
        no_prior: bool = False,
    ) -> str: ...
    def discover_json(
        self,
        task: str,
        budget_tokens: int = 16000,
        max_steps: int = 64,
        anchors: int = 8,
        tau: float = 0.15,
        kappa: float = 0.62,
        location_only: bool = False,
        no_compression: bool = False,
        no_implicit: bool = False,
        no_metadata_first: bool = False,
    ) -> tuple[str, str]: ...

def version() -> str: ...
