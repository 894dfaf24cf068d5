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

def version() -> str: ...
