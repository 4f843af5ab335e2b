"""A two-link flexible arm puts a payload down on a table and lets go of it (Chrono contact).

Problem: a two-link arm in the vertical plane (gravity -Y): link 1 (0.5 m, EI = 40 N m^2,
rho A = 0.6 kg/m) from the shoulder at the origin, link 2 (0.4 m, EI = 20 N m^2,
rho A = 0.4 kg/m) hanging down from the elbow, 2 cubic elements each, a little
stiffness-proportional damping (beta = 4 ms). Each link is a
:class:`chrono_flex.chrono.FlexibleLink`: link 1 on the ground; at its tip an elbow body
(50 g) welded by :meth:`~chrono_flex.chrono.FlexibleLink.attach`; link 2 carried by that
body (``parent_body``). Both joints follow prescribed angles (Chrono shaft motors,
``joint_motion``): the shoulder lowers by 0.106 rad along a smooth (quintic) profile
while the elbow keeps link 2 vertical, holds, and after the release lifts back. A 6 cm
cube (0.25 kg) hangs from the tip, welded by
:meth:`~chrono_flex.chrono.FlexibleLink.attach`; it and the table (a fixed 40 x 5 x 30 cm
box) carry collision shapes. The lowering would take the cube 3 mm below the table top;
the arm's compliance takes the difference, so the cube is pressed onto the table. At
t = 0.6 s :meth:`~chrono_flex.chrono.attachment.Attachment.release` opens the weld and the
arm lifts away.

``--contact`` chooses Chrono's contact method (docs/chrono.md §9):

* ``smc``: ``ChSystemSMC``, Hertz contact (E = 1e7 Pa, restitution 0.1, friction 0.5)
  with its stiffness in the implicit step (``SetContactStiff``), HHT with numerical
  damping (alpha = -0.3: with alpha = 0 the cube chatters on its corners and is thrown
  off the table), sparse LU, 1 ms;
* ``nsc``: ``ChSystemNSC``, complementarity contact (friction 0.5, no restitution),
  linearised implicit Euler with the ADMM solver (a sparse LU inside for the stiffness
  of the arm), 2 ms.

Expected result: the cube comes to rest on the table, its centre at the table top plus
half its side (to the contact's own compliance: for SMC the Hertz overlap of four
corners sharing the weight, 41 micrometres; nothing for NSC), the contact force equal to
its weight (2.45 N); before
the release the table also takes the arm's press. The tip deflects by a few millimetres
while carrying, more while pressing.

``--formulation beam`` builds the same arm from Chrono's beams instead (one
``BeamArm``, the elbow body's mass on link 2's hub, the cube welded to the tip node by
``BeamArm.attach``, started from Chrono's static equilibrium, ``DoStaticNonlinear``),
with NSC contact only (with SMC the cube chatters on an edge and tips over).

Run: ``python chrono_arm_payload_on_table.py [OUTPUT_DIR] [--contact smc|nsc]
[--formulation element|beam] [--t-end T] [--no-gif]``; the plot and the GIF go to
OUTPUT_DIR (default the current directory) and their absolute paths are printed.
"""

import argparse
import os
import sys

import numpy as np

from chrono_flex.errors import ParameterError, PyChronoUnavailable
from chrono_flex.inputs import smooth_step

G = 9.81
#: Links: length (m), EI (N m^2), rho A (kg/m); elements per link; damping beta (s).
LINKS = ((0.5, 40.0, 0.6), (0.4, 20.0, 0.4))
N_ELEMENTS, DAMPING_BETA = 2, 4e-3
#: The elbow body between the links (a joint housing): mass (kg), inertia (kg m^2).
ELBOW_MASS, ELBOW_INERTIA = 0.05, 1e-4
#: Payload cube: side (m), mass (kg).
BOX, BOX_MASS = 0.06, 0.25
#: The cube's drop before it touches the table (m), and how far below the table top the
#: rigid arm would take it (m): the press.
DROP, PRESS = 0.05, 0.003
#: Timeline (s): lowering starts, ends; release; lifting starts, ends; end.
T_LOWER, T_DOWN, T_RELEASE, T_LIFT, T_UP, T_END = 0.05, 0.45, 0.6, 0.65, 0.9, 1.2
#: Contact material: Young's modulus (SMC, Pa), Poisson's ratio, restitution, friction.
YOUNG, POISSON, RESTITUTION, FRICTION = 1e7, 0.3, 0.1, 0.5
#: Collision envelope and safe margin (m): small beside the cube.
ENVELOPE, MARGIN = 2e-3, 1e-3
#: SMC's integrator (configure_system's arguments).
SMC_INTEGRATOR = dict(timestepper="hht", alpha=-0.3)
#: Time steps (s).
STEPS = {"smc": 1e-3, "nsc": 2e-3}
#: GIF frames per simulated second.
FRAMES_PER_SECOND = 25


def hertz_overlap(force, n_points, young=YOUNG, poisson=POISSON, radius=0.1):
    """Overlap (m) of SMC's Hertz contact when ``n_points`` contact points of two bodies
    of the same material share ``force`` (N): F_i = (4/3) E* sqrt(R) delta^(3/2)
    (Johnson 1985, Contact mechanics, eq. 4.22), E* = E / (2 (1 - nu^2)) for equal
    materials, R the effective radius of curvature (Chrono's default for flat faces:
    ``ChCollisionInfo.GetDefaultEffectiveCurvatureRadius()``, 0.1 m)."""
    E_star = young / (2.0 * (1.0 - poisson ** 2))
    return float((3.0 * force / (4.0 * n_points * E_star * np.sqrt(radius))) ** (2.0 / 3.0))


def shoulder_drop():
    """The shoulder angle (rad, negative: down) that lowers the rigid arm's tip by
    DROP + PRESS with link 2 kept vertical: L1 sin(delta) = DROP + PRESS."""
    return -float(np.arcsin((DROP + PRESS) / LINKS[0][0]))


def joint_motion(t):
    """(theta, theta_d, theta_dd) of both joints: the shoulder down and back up along
    smooth steps, the elbow at -pi/2 - theta_1 (link 2 vertical)."""
    delta = shoulder_drop()
    d, dd, ddd = smooth_step(t, T_LOWER, T_DOWN)
    u, ud, udd = smooth_step(t, T_LIFT, T_UP)
    th1, th1d, th1dd = delta * (d - u), delta * (dd - ud), delta * (ddd - udd)
    return (np.array([th1, -np.pi / 2 - th1]), np.array([th1d, -th1d]),
            np.array([th1dd, -th1dd]))


def build(contact="smc", formulation="element"):
    """The scene: a dict with system, arm (its readings: joint_angles, tip_deflections,
    elbow_gap, centrelines), payload, table, weld (the payload's), table_top (m),
    contact, formulation ("element": two FlexibleLinks and a welded elbow body; "beam":
    Chrono's beams)."""
    import chrono_flex as cf
    from chrono_flex.chrono import configure_system, require_pychrono

    if contact not in ("smc", "nsc"):
        raise ParameterError("contact", contact, "must be 'smc' or 'nsc'")
    if formulation not in ("element", "beam"):
        raise ParameterError("formulation", formulation, "must be 'element' or 'beam'")
    if formulation == "beam" and contact == "smc":
        raise ParameterError("formulation", formulation, "with contact='smc' is not offered: "
                             "the cube chatters on an edge and tips over at 1 ms and Newton "
                             "fails at 0.5 ms (docs/chrono.md §9); use contact='nsc'")
    chrono = require_pychrono()
    if contact == "smc":
        system = chrono.ChSystemSMC()
        configure_system(system, **SMC_INTEGRATOR)
        system.SetContactStiff(True)      # the contact's Jacobian joins the implicit step
        mat = chrono.ChContactMaterialSMC()
        mat.SetYoungModulus(YOUNG)
        mat.SetPoissonRatio(POISSON)
        mat.SetRestitution(RESTITUTION)
    else:
        system = chrono.ChSystemNSC()
        # complementarity needs a VI solver; ADMM solves it with a sparse LU inside for
        # the arm's stiffness and damping matrices
        solver = chrono.ChSolverADMM(chrono.ChSolverSparseLU())
        solver.SetMaxIterations(300)
        solver.SetToleranceDual(1e-8)
        solver.SetTolerancePrimal(1e-8)
        system.SetSolver(solver)
        system.SetTimestepperType(chrono.ChTimestepper.Type_EULER_IMPLICIT_LINEARIZED)
        mat = chrono.ChContactMaterialNSC()
        mat.SetRestitution(0.0)
    mat.SetFriction(FRICTION)
    system.SetGravitationalAcceleration(chrono.ChVector3d(0, -G, 0))
    system.SetCollisionSystemType(chrono.ChCollisionSystem.Type_BULLET)

    links = [cf.Link(length=L, n_elements=N_ELEMENTS, EI=EI, rho_A=mu,
                     damping_beta=DAMPING_BETA) for L, EI, mu in LINKS]
    joints = [cf.RevoluteJoint(), cf.RevoluteJoint(hub_mass=ELBOW_MASS)]
    if formulation == "beam":
        arm = _BeamArm(system, links, joints)
    else:
        arm = _ElementArm(system, links, joints)
    tip = arm.tip()
    payload = chrono.ChBodyEasyBox(BOX, BOX, BOX, BOX_MASS / BOX ** 3, True, True, mat)
    payload.SetPos(chrono.ChVector3d(tip[0], tip[1] - BOX / 2, 0.0))
    _margins(payload)
    system.Add(payload)
    # every collision shape goes in before the first assembly (the beams' attach and
    # static solve run one): a body added afterwards is left out of the collision system
    size = (0.4, 0.05, 0.3)
    table = chrono.ChBodyEasyBox(*size, 1000.0, True, True, mat)
    table.SetFixed(True)
    _margins(table)
    table.SetPos(chrono.ChVector3d(0.0, -10.0, 0.0))     # out of the way until placed
    system.Add(table)
    weld = arm.attach(payload)
    if formulation == "beam":
        # the beams start undeformed: their static equilibrium with the cube (no contact
        # yet, the joints held at their start) before the first step
        system.DoStaticNonlinear(50)
    table_top = payload.GetPos().y - BOX / 2 - DROP
    table.SetPos(chrono.ChVector3d(payload.GetPos().x, table_top - size[1] / 2, 0.0))
    return dict(system=system, arm=arm, payload=payload, table=table, weld=weld,
                table_top=float(table_top), contact=contact, formulation=formulation,
                material=mat)


class _ElementArm:
    """Two FlexibleLinks: link 1 on the ground, an elbow body welded at its tip, link 2
    carried by that body; the readings of :func:`run`."""

    def __init__(self, system, links, joints):
        import chrono_flex as cf
        from chrono_flex.chrono import FlexibleLink, require_pychrono

        chrono = require_pychrono()
        # the static equilibrium of the whole arm (the elbow body a point mass at the
        # joint, the cube's weight at the tip), to start without ringing
        whole = cf.PlanarArm(links, joints=joints, gravity=G)
        q0 = whole.static_deflection(joint_motion(0.0)[0], tip_force=(0.0, -BOX_MASS * G))
        e0 = q0[whole.elastic_index]
        n1 = len(e0) // 2
        one = [lambda t, j=j: tuple(np.array([v[j]]) for v in joint_motion(t)) for j in (0, 1)]
        # link 1 on the ground, its shoulder prescribed (a Chrono shaft motor) ...
        self.link1 = FlexibleLink(system, cf.PlanarArm([links[0]]), joint_motion=one[0],
                                  elastic0=e0[:n1])
        # ... an elbow body welded to its tip, turned to the tip's tangent ...
        tip_frame = self.link1.tip_frame()
        self.elbow = elbow = chrono.ChBody()
        elbow.SetMass(ELBOW_MASS)
        elbow.SetInertiaXX(chrono.ChVector3d(*(ELBOW_INERTIA,) * 3))
        elbow.SetPos(tip_frame.GetPos())
        elbow.SetRot(tip_frame.GetRot())
        elbow.EnableCollision(False)
        system.Add(elbow)
        self.elbow_weld = self.link1.attach(elbow, stiffness_ratio=100.0)
        # ... and link 2 carried by the elbow body, its joint prescribed relative to it
        self.link2 = FlexibleLink(system, cf.PlanarArm([links[1]]), parent_body=elbow,
                                  joint_frame=((0.0, 0.0, 0.0), (1.0, 0.0, 0.0),
                                               (0.0, 1.0, 0.0)),
                                  joint_motion=one[1], elastic0=e0[n1:])

    def tip(self):
        return self.link2.centerlines(2)[-1, -1]

    def attach(self, body):
        return self.link2.attach(body, stiffness_ratio=100.0)

    def joint_angles(self):
        return [self.link1.joint_angles()[0], self.link2.joint_angles()[0]]

    def tip_deflections(self):
        return [self.link1.tip_deflections()[0], self.link2.tip_deflections()[0]]

    def elbow_gap(self):
        return self.elbow_weld.error()[0]

    def centrelines(self):
        return np.array([lk.centerlines(21)[0, :, :2] for lk in (self.link1, self.link2)])


class _BeamArm:
    """The same arm of Chrono's beams (one BeamArm, both joints ChLinkMotorRotationAngle,
    the elbow's mass on its hub); the readings of :func:`run`."""

    def __init__(self, system, links, joints):
        import chrono_flex as cf
        from chrono_flex.chrono.beam_scene import build_beams

        self.beams = build_beams(cf.PlanarArm(links, joints=joints), joint_motion=joint_motion,
                                 system=system)

    def tip(self):
        return self.beams.links[-1].nodes[-1].GetPos().to_numpy()

    def attach(self, body):
        return self.beams.attach(body)

    def joint_angles(self):
        return list(self.beams.joint_state()[0])

    def tip_deflections(self):
        return list(self.beams.tip_deflections())

    def elbow_gap(self):
        return 0.0          # the elbow is a clamp (ChLinkMateGeneric) at a node

    def centrelines(self):
        return self.beams.centrelines(21)[0]


def _margins(body):
    model = body.GetCollisionModel()
    model.SetEnvelope(ENVELOPE)
    model.SetSafeMargin(MARGIN)


def run(contact="smc", t_end=T_END, step=None, frame_every=None, formulation="element"):
    """Simulate; returns a dict of arrays over the steps: t (s), joints (n, 2) rad,
    payload_y (m, the cube's centre), contact_y (N, vertical contact force on the cube),
    tip_deflection (n, 2) m, released (bool), elbow_gap (m, the elbow weld's); scalars
    table_top, rest_height (table top + half the cube), weight (N); with ``frame_every``
    (s): t_frames, arm (nf, 2, 21, 2), box (nf, 5, 2), and table (5, 2) outlines;
    ``formulation`` as for :func:`build`."""
    from chrono_flex.chrono import quiet_swig, step as step_system

    sc = build(contact, formulation)
    system, payload, weld, arm = sc["system"], sc["payload"], sc["weld"], sc["arm"]
    h = STEPS[contact] if step is None else float(step)
    every = None if frame_every is None else max(1, int(round(frame_every / h)))
    rows, frames = [], []
    n = int(round(t_end / h))
    with quiet_swig():
        for k in range(n + 1):
            if k:
                step_system(system, h)
            t = system.GetChTime()
            if not weld.released and t >= T_RELEASE - 1e-9:
                weld.release()
            rows.append([t, *arm.joint_angles(), payload.GetPos().y,
                         payload.GetContactForce().y, *arm.tip_deflections(),
                         float(weld.released), arm.elbow_gap()])
            if every is not None and k % every == 0:
                A = np.asarray(payload.GetRotMat().to_numpy(), dtype=float)
                corners = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0],
                                    [-1, -1, 0]]) * BOX / 2
                box = payload.GetPos().to_numpy() + corners @ A.T
                frames.append((t, arm.centrelines(), box[:, :2]))
    r = np.array(rows)
    out = dict(t=r[:, 0], joints=r[:, 1:3], payload_y=r[:, 3], contact_y=r[:, 4],
               tip_deflection=r[:, 5:7], released=r[:, 7] > 0, elbow_gap=r[:, 8],
               table_top=sc["table_top"],
               rest_height=sc["table_top"] + BOX / 2, weight=BOX_MASS * G, contact=contact,
               formulation=formulation, step=h)
    if frames:
        x0 = sc["table"].GetPos().x
        top = sc["table_top"]
        out.update(t_frames=np.array([f[0] for f in frames]),
                   arm=np.array([f[1] for f in frames]), box=np.array([f[2] for f in frames]),
                   table=np.array([[x0 - 0.2, top], [x0 + 0.2, top], [x0 + 0.2, top - 0.05],
                                   [x0 - 0.2, top - 0.05], [x0 - 0.2, top]]))
    return out


def plot(res, path):
    from matplotlib import pyplot as plt

    t = res["t"]
    fig, ax = plt.subplots(4, 1, sharex=True, figsize=(7, 8.5))
    ax[0].plot(t, res["joints"][:, 0], label="shoulder")
    ax[0].plot(t, res["joints"][:, 1] + np.pi / 2, label="elbow + pi/2")
    ax[0].set_ylabel("joint angle (rad)")
    ax[1].plot(t, (res["payload_y"] - res["rest_height"]) * 1e3)
    ax[1].set_ylabel("cube height above\nits rest on the table (mm)")
    ax[1].set_yscale("symlog", linthresh=0.01)
    ax[2].plot(t, res["contact_y"], label="contact force on the cube")
    ax[2].axhline(res["weight"], color="k", ls=":", label="its weight")
    ax[2].set_ylabel("force (N)")
    ax[3].plot(t, res["tip_deflection"][:, 0] * 1e3, label="link 1")
    ax[3].plot(t, res["tip_deflection"][:, 1] * 1e3, label="link 2")
    ax[3].set_ylabel("tip deflection (mm)")
    ax[3].set_xlabel("t (s)")
    for a in ax:
        a.axvline(T_RELEASE, color="tab:red", lw=0.8, alpha=0.6)
        a.grid(alpha=0.3)
    for a in (ax[0], ax[2], ax[3]):
        a.legend(fontsize=7, loc="upper right")
    ax[0].set_title(f"arm ({res['formulation']}) puts a cube on a table "
                    f"({res['contact'].upper()} contact; red: release)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_gif(res, path):
    from chrono_flex.viz.mechanism import render_mechanism

    nf = len(res["t_frames"])
    lines = {"table": np.tile(res["table"], (nf, 1, 1)),
             "link 1": res["arm"][:, 0], "link 2": res["arm"][:, 1], "payload": res["box"]}
    styles = {"table": dict(color="0.4", lw=2), "link 1": dict(color="tab:blue", lw=3),
              "link 2": dict(color="tab:green", lw=3),
              "payload": dict(color="tab:red", lw=2)}
    k_of = np.searchsorted(res["t"], res["t_frames"] - 1e-12)
    state = np.where(res["released"][k_of], "released", "welded")
    return render_mechanism(res["t_frames"], lines, path, styles=styles,
                            title=f"two-link flexible arm ({res['formulation']}), "
                                  f"{res['contact'].upper()} contact",
                            labels=lambda k: f"payload {state[k]}", n_frames=nf)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output_dir", nargs="?", default=os.getcwd())
    parser.add_argument("--contact", choices=("smc", "nsc"), default="smc")
    parser.add_argument("--formulation", choices=("element", "beam"), default="element",
                        help="the links: the papers' element (two FlexibleLinks) or "
                             "Chrono's beams")
    parser.add_argument("--t-end", type=float, default=T_END)
    parser.add_argument("--no-gif", action="store_true", help="write the plot only")
    args = parser.parse_args(argv)
    folder = os.path.abspath(args.output_dir)
    try:
        res = run(args.contact, t_end=args.t_end, formulation=args.formulation,
                  frame_every=None if args.no_gif else 1.0 / FRAMES_PER_SECOND)
    except PyChronoUnavailable as exc:
        sys.exit(f"{os.path.basename(__file__)}: {exc}")
    last = res["t"] > res["t"][-1] - 0.1
    print(f"{args.contact.upper()}, {args.formulation}: cube at {res['payload_y'][-1]:.6f} m, "
          f"rest height {res['rest_height']:.6f} m (off by "
          f"{(res['payload_y'][-1] - res['rest_height']) * 1e6:.1f}"
          f" um); contact force over the last 0.1 s {res['contact_y'][last].mean():.4f} N, "
          f"weight {res['weight']:.4f} N; largest tip deflection "
          f"{np.max(np.abs(res['tip_deflection'])) * 1e3:.2f} mm")
    os.makedirs(folder, exist_ok=True)
    stem = f"chrono_arm_payload_on_table_{args.contact}" + (
        "" if args.formulation == "element" else "_beam")
    print(f"wrote {plot(res, os.path.join(folder, stem + '.png'))}")
    if not args.no_gif:
        print(f"wrote {write_gif(res, os.path.join(folder, stem + '.gif'))}")


if __name__ == "__main__":
    main()
