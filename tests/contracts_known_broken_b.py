"""Contracts of chapters 4-6's readers, inner steps and figures that the generated tests found broken (issue 44
item 5), merged into ``test_contracts_api.KNOWN_BROKEN``: callable -> the parameters whose hostile values are not yet
refused clearly. The modules of these callables key chapters 4-6's stored full-profile results, so each boundary
check lands in a commit of its own ("Boundary check (keys chapter N): ..."), which removes its entry here."""

KNOWN_BROKEN_B = {
}
