"""What a mechanism guarantees: the privacy notions as values, the exact measures, the
exact verifier, the privacy report, conversions between notions and the Blackwell order.
"""

from .._lazy import lazy_exports

_NAMES = {
    "ApproxLDP": ".notions",
    "DeletionLDP": ".notions",
    "LDP": ".notions",
    "MetricDP": ".notions",
    "Notion": ".notions",
    "SLDP": ".notions",
    "WLDP": ".notions",
    "EPSILON_TOL": ".measures",
    "approx_to_pure": ".conversions",
    "approx_to_pure_epsilon": ".conversions",
    "approx_to_pure_protocol": ".conversions",
    "deletion_delta_at": ".measures",
    "deletion_lp": ".measures",
    "deletion_reference": ".conversions",
    "deletion_to_replacement": ".conversions",
    "DeletionLP": ".measures",
    "DeletionPrivacy": ".measures",
    "DeletionRepair": ".conversions",
    "delta_deletion": ".measures",
    "delta_deletion_at": ".conversions",
    "delta_ldp": ".measures",
    "epsilon_deletion": ".measures",
    "epsilon_ldp": ".measures",
    "epsilon_metric": ".measures",
    "epsilon_sldp": ".measures",
    "epsilon_wldp": ".measures",
    "ExactWitness": ".verify",
    "garbling": ".blackwell",
    "Guarantee": ".conversions",
    "hockey_stick": ".measures",
    "is_garbling_of": ".blackwell",
    "kov_decomposition": ".conversions",
    "KOVDecomposition": ".conversions",
    "mix_with_uniform": ".conversions",
    "pairwise_log_ratios": ".measures",
    "privacy_report": ".report",
    "pure_to_approx_epsilon": ".conversions",
    "PureConversion": ".conversions",
    "PureLDPProtocol": ".conversions",
    "ratio": ".report",
    "replacement_to_deletion": ".conversions",
    "skipped_measures": ".report",
    "to_pure_deletion": ".conversions",
    "Verification": ".verify",
    "verify_exact": ".verify",
    "Witness": ".measures",
    "worst_log_ratio": ".measures",
}

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
__all__ = sorted(_NAMES)
