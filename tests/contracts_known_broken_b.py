"""Contracts of chapters 4-6's readers, inner steps and figures that the generated tests found broken (issue 44
item 5), merged into ``test_contracts_api.KNOWN_BROKEN``: callable -> the parameters whose hostile values are not yet
refused clearly. The modules of these callables key chapters 4-6's stored full-profile results, so each boundary
check lands in a commit of its own ("Boundary check (keys chapter N): ..."), which removes its entry here."""

KNOWN_BROKEN_B = {
    "mfattn.structural.figures:bruteforce": {"instances", "n", "study"},
    "mfattn.structural.figures:expanding_operations": {"dims", "ps", "rel", "runs"},
    "mfattn.structural.figures:expanding_prior": {"example"},
    "mfattn.structural.figures:expanding_window": {"coverage", "dims", "ps"},
    "mfattn.structural.figures:hopfield": {"betas_long", "dim", "gap_long", "grid"},
    "mfattn.structural.figures:inference_comparison": {"comparison", "d", "ps"},
    "mfattn.structural.figures:multihop_ablation": {"role_labels", "runs"},
    "mfattn.structural.figures:multihop_attention": {"nmse_test", "results", "role_labels"},
    "mfattn.structural.figures:multihop_curves": {"n_seeds", "results"},
    "mfattn.structural.figures:multihop_reproduction": {"dev", "ref_multi", "repro"},
    "mfattn.structural.figures:predictive_coding": {"n_parents", "problem", "study"},
    "mfattn.structural.figures:slots": {"n_slots", "sigmas", "spread", "study", "trial"},
}
