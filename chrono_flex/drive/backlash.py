"""Gear link with elasticity, backlash, load-dependent friction ([S] sec. 2; docs/drive.md §3).

theta is the twist of the link referred to the output shaft, theta = alpha1/i - alpha2
([S] eq. 14); theta_b the half-width of the backlash. Pure functions of floats or arrays.
"""

from . import _elementwise as ew

#: A backlash at or below this half-width (rad) is treated as none (as Modelica's bEps).
GAP_EPS = 1e-10

CONTACT_LAWS = ("modelica", "linear")


def dead_zone(theta, theta_b):
    """b(theta), [S] eq. 16: theta - theta_b above the gap, theta + theta_b below it, 0 inside."""
    theta = ew.as_input(theta)
    return ew.where(theta > theta_b, theta - theta_b,
                    ew.where(theta < -theta_b, theta + theta_b, 0.0 * theta))


def dead_zone_slope(theta, theta_b):
    """b'(theta), [S] eq. 17: 1 outside the gap (|theta| > theta_b), 0 inside."""
    theta = ew.as_input(theta)
    return ew.where(ew.absolute(theta) > theta_b, 1.0 + 0.0 * theta, 0.0 * theta)


def transmitted_torque(theta, dtheta, c, d, theta_b, contact="modelica"):
    """Torque M1' the elastic link with backlash transmits to the output ([S] eq. 15).

    contact="linear" is [S] eq. 15 as printed: M1' = d b'(theta) dtheta/dt + c b(theta).
    In contact, its damper pulls the teeth together whenever d dtheta/dt outweighs the
    spring torque with the opposite sign (teeth that separate would stick), and the torque
    jumps by d dtheta/dt at the instant of contact.

    contact="modelica" (default) is the characteristic of Modelica's
    Rotational.Components.ElastoBacklash, which fixes both: with tau_c = c b(theta) and
    tau_d = d dtheta/dt,

        theta >  theta_b:  M1' = 0 if tau_c + tau_d <= 0 else tau_c + min(tau_c, tau_d)
        theta < -theta_b:  M1' = 0 if tau_c + tau_d >= 0 else tau_c + max(tau_c, tau_d)
        inside the gap:    M1' = 0

    so a contact only pushes (no pulling torque) and |damper torque| <= |spring torque|,
    which keeps M1' continuous at the start of contact. That continuity is why it is the
    default: an explicit fixed-step integrator ([S]'s aim) sees no torque jump, and the
    energy bookkeeping stays dissipative (the lost power (M1' - tau_c) dtheta/dt >= 0).

    No gap (theta_b <= GAP_EPS) means both flanks are always in contact, and the link is
    the plain spring-damper c theta + d dtheta/dt, which may pull (as Modelica with b = 0).
    The limit theta_b -> 0+ is not the spring-damper when the damper would pull: a gear
    with play cannot transmit a pulling torque however small the play.
    """
    theta = ew.as_input(theta)
    dtheta = ew.as_input(dtheta)
    if theta_b <= GAP_EPS:
        return c * theta + d * dtheta
    tau_c = c * dead_zone(theta, theta_b)
    tau_d = d * dtheta
    if contact == "linear":
        return tau_c + dead_zone_slope(theta, theta_b) * tau_d
    s = tau_c + tau_d
    push_pos = ew.where(s <= 0.0, 0.0 * s, tau_c + ew.minimum(tau_c, tau_d))
    push_neg = ew.where(s >= 0.0, 0.0 * s, tau_c + ew.maximum(tau_c, tau_d))
    return ew.where(theta > theta_b, push_pos, ew.where(theta < -theta_b, push_neg, 0.0 * s))


def spring_energy(theta, c, theta_b):
    """Elastic energy c b(theta)^2 / 2 stored in the link (J)."""
    b = dead_zone(theta, theta_b if theta_b > GAP_EPS else 0.0)
    return 0.5 * c * b * b


def load_factor(M1p, K_ML):
    """Growth of friction with the transmitted torque, (|M1'| K_ML + 1) of [S] eq. 20."""
    return ew.absolute(ew.as_input(M1p)) * K_ML + 1.0


def friction_torque(M1p, M_F, omega_out, K_ML, K_V2):
    """Friction torque on the output, [S] eq. 20: M_F' = (|M1'| K_ML + 1) M_F + K_V2 Omega2."""
    return load_factor(M1p, K_ML) * M_F + K_V2 * ew.as_input(omega_out)
