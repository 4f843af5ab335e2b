"""The step loop of the compiled generalized-alpha step (:mod:`.chain_ga`): steps of
:func:`ga_solve` through output times in one call (:func:`ga_advance`,
:func:`ga_outputs`), under a fixed step or the step control, with the input profiles'
formulas evaluated in the loop (:func:`profile_values`)."""

import math

import numpy as np

from . import kernels
from .chain_linalg import ST_GROUPS
from .chain_newton import (FAILED, NON_FINITE, OK, filtered_error_in, ga_solve,
                           predicted_state)

if kernels.numba is not None:
    from llvmlite import ir
    from numba import types as _types
    from numba.extending import intrinsic

    @intrinsic
    def call_port(typingctx, address, t):
        """The C function at ``address`` (int32 f(double),
        :class:`chrono_flex._callbacks.CompiledPort`) called with t; its return value
        (0: done, 1: the callback failed)."""
        sig = _types.int32(_types.intp, _types.float64)

        def codegen(context, builder, signature, args):
            fnty = ir.FunctionType(ir.IntType(32), [ir.DoubleType()])
            return builder.call(builder.inttoptr(args[0], fnty.as_pointer()), [args[1]])
        return sig, codegen
else:                                    # pragma: no cover - the compiled loops need numba
    def call_port(address, t):
        raise RuntimeError("the compiled step loops need numba")


@kernels._jit
def profile_values(code, amp, par, t, out):
    """The joint forces of an input profile at time t into ``out``: the formulas of
    :mod:`chrono_flex.inputs` (codes :data:`chrono_flex.inputs.KERNEL_CODES`; ``amp``
    the amplitudes, ``par`` the parameters its ``kernel`` holds), in the same
    operations, so the same numbers: 1 pulse (period, w), 2 step (t_start), 3 sine (w,
    phase, offset), 4 bang-bang (period)."""
    for k in range(amp.shape[0]):
        a = amp[k]
        if code == 1:
            if 0.0 <= t < par[0]:
                out[k] = a * (math.sin(par[1] * t) * (1 - math.cos(par[1] * t)) / 2)
            else:
                out[k] = 0.0 * a
        elif code == 2:
            out[k] = a if t >= par[0] else 0.0 * a
        elif code == 3:
            out[k] = par[2] + a * math.sin(par[0] * t + par[1])
        else:
            if t < par[0] / 2:
                out[k] = a
            else:
                out[k] = -a if t < par[0] else 0.0 * a


#: Further status codes of :func:`ga_advance`: SHRUNK, the step control shrank the step
#: below 1e-12 of the time scale; PAUSED, the call took its ``max_steps`` steps (or used
#: the joint forces given ahead) before ``t_target``: the caller goes on from where it
#: stopped after a look at interrupts and budgets (:func:`chrono_flex.stepping.checkpoint`).
SHRUNK, PAUSED = 3, 4

#: The step control lands on a target with one step when the remainder after the
#: proposed step h is below this fraction of h (``GeneralizedAlpha.LANDING_STRETCH``,
#: which states why).
LANDING_STRETCH = 0.25

#: Statuses of a step with a user law called from the loop: UNSETTLED, the corrections
#: of a held state-reading law did not settle (:func:`held_solve`); LAW_FAILED, a call
#: of the law failed (its port keeps the error).
UNSETTLED, LAW_FAILED = 5, 6

#: Corrections of a held state-reading law per step before the step returns
#: UNSETTLED, and the tolerance that accepts the held value: the law at the converged
#: end state differs from it by at most this fraction of the largest value seen
#: (``ChainStep.MAX_CORRECTIONS``, ``ChainStep.CORRECTION_RTOL``).
MAX_CORRECTIONS, CORRECTION_RTOL = 4, 1e-7


@kernels._jit
def held_solve(P, K, D, g, stiff, Q, jidx, tau, x, y, acc, y_last, ratio, h, t_new, am, af,
               gamma, beta, rtol, atol, max_iters, JF, Mj, A, piv, S, state, counts, port,
               buf, law_state):
    """A step with a state-reading joint-torque law f(t, q, q_d) called through its
    port (:func:`call_port`): the law at the state predicted for the step's end, held
    through :func:`ga_solve`, again at the converged state, and the solve repeated with
    that value until it no longer changes (:data:`CORRECTION_RTOL` of the largest value
    seen, kept in law_state[0]; law_state[1] counts the corrections): the compiled twin
    of ``ChainStep._solve_held``, which states why. Returns (status, x_{n+1}, y_{n+1},
    acc_{n+1}); status that of :func:`ga_solve`, UNSETTLED or LAW_FAILED; ``tau`` and Q
    hold the value the last solve used."""
    nq = (x.shape[0] - 2) // 2
    nj = jidx.shape[0]
    xp = predicted_state(x, y, acc, y_last, ratio, nq, h, am, af, gamma, beta)
    for i in range(2 * nq):
        buf[i] = xp[i]
    if call_port(port, t_new) != 0:
        return LAW_FAILED, xp, y, acc
    for j in range(nj):
        tau[j] = buf[2 * nq + j]
    for _ in range(MAX_CORRECTIONS):
        for j in range(nj):
            Q[jidx[j]] = tau[j]
        status, xn, yn, accn = ga_solve(P, K, D, g, stiff, Q, jidx, tau, x, y, acc, y_last,
                                        ratio, h, am, af, gamma, beta, rtol, atol,
                                        max_iters, JF, Mj, A, piv, S, state, counts)
        if status != OK:
            return status, xn, yn, accn
        for i in range(2 * nq):
            buf[i] = xn[i]
        if call_port(port, t_new) != 0:
            return LAW_FAILED, xn, yn, accn
        change = 0.0
        for j in range(nj):
            law_state[0] = max(law_state[0], abs(buf[2 * nq + j]))
            change = max(change, abs(buf[2 * nq + j] - tau[j]))
        law_state[1] += 1
        if change <= CORRECTION_RTOL * law_state[0]:
            return OK, xn, yn, accn
        for j in range(nj):
            tau[j] = buf[2 * nq + j]
    return UNSETTLED, xn, yn, accn


#: What :func:`_sample_if_due` did: nothing due, or a sample taken (and the statuses
#: PAUSED, LAW_FAILED).
NOT_DUE, SAMPLED = 0, 1


@kernels._jit
def _sample_if_due(t, x, Q, jidx, tau, port, buf, period, samp, sample_t, sample_v):
    """The sampled law (zero-order hold, no delay) at its next instant t_k = k period
    (k = ``samp[0]``) when due at t (``SampledTorque._due`` of the reference engine, the
    same tolerances): q, q_d into ``buf``, the law called through its port
    (:func:`call_port`), its value from ``buf[2 nq:]`` held in ``tau`` and Q and stored
    as sample ``samp[1]`` of ``sample_t``, ``sample_v``. Returns NOT_DUE, SAMPLED,
    PAUSED (the samples' capacity reached) or LAW_FAILED."""
    t_event = samp[0] * period
    if t_event > t + 1e-9 * period + 1e-12 * abs(t):
        return NOT_DUE
    taken = samp[1]
    if taken == sample_t.shape[0]:
        return PAUSED
    nq = (x.shape[0] - 2) // 2
    for i in range(2 * nq):
        buf[i] = x[i]
    if call_port(port, t_event) != 0:
        return LAW_FAILED
    for j in range(jidx.shape[0]):
        tau[j] = buf[2 * nq + j]
        Q[jidx[j]] = tau[j]
        sample_v[taken, j] = tau[j]
    sample_t[taken] = t_event
    samp[1] = taken + 1
    samp[0] += 1
    return SAMPLED


@kernels._jit
def ga_advance(P, K, D, g, stiff, Q, jidx, tau, taus, i0, pcode, pamp, ppar, t, t_target,
               x, y, acc, y_last, t_last, step, adaptive, h_next, q_scale, err_rtol,
               max_step, am, af, gamma, beta, rtol, atol, max_iters, JF, Mj, A, piv, S,
               state, counts, max_steps, port, buf, law_state, period, samp, sample_t,
               sample_v):
    """Steps of :func:`ga_solve` from t to ``t_target``: the loop of
    ``GeneralizedAlpha.advance`` compiled. The joint forces of a step, set into ``tau``
    and Q: with rows in ``taus``, those of step k (counted from this call's first) are
    the row i0 + k (fixed step only: the input evaluated ahead at the steps' ends,
    :func:`fixed_grid`); else, with ``pcode`` > 0, the input profile (pcode, pamp,
    ppar) at the step's end (:func:`profile_values`); else, with a ``port`` (not 0),
    a state-reading law called from the loop, held over each step and corrected
    (:func:`held_solve`; ``buf``, ``law_state`` its buffer and state; a step whose
    corrections do not settle returns UNSETTLED at its start, for the Python side to
    take by the exact iteration); else Q is constant (no time-dependent input). With
    ``period`` > 0 the ``port`` is instead a sampled law: the steps land on its
    instants as on ``t_target``, where it is called when due (:func:`_sample_if_due`;
    ``samp`` = [next sample's number, samples taken], ``sample_t``, ``sample_v`` the
    samples) and its value held until the next (:func:`ga_sampled`; one call runs
    through many sample periods: a call of this function costs the reference counts of
    its some forty arrays, more than a step's force evaluation).
    Fixed step (``adaptive`` False): equal sub-steps no longer than ``step``; a step
    whose Newton fails returns FAILED at its start, for the Python side to halve.
    Adaptive (``adaptive`` 1, or 2 for the estimate filtered through the Newton matrix,
    :func:`filtered_error`): the step control of ``GeneralizedAlpha._adaptive`` (local
    error (4.14) against err_rtol (1e-6 + max |q_k|), factor (0.9/err)^(1/3) within
    [0.2, 2], the landing rules) with ``h_next`` the proposed step.

    At most ``max_steps`` steps are tried (accepted, rejected and retried together;
    a pause comes after an accepted step, never while a step is being retried), and
    with rows in ``taus`` no more than it holds: then the call returns PAUSED
    before ``t_target`` (the work of one call is bounded, so that the caller can look
    at interrupts and budgets between calls; resumed, the steps are those an
    uninterrupted call takes).

    Returns (status, t, x, y, acc, y_last, t_last, h_next, q_scale, steps, rejected,
    retries): where it stopped (t_target when OK), the state there, the state before
    the last step (for the extrapolated first iterate), and the counts."""
    nq = (x.shape[0] - 2) // 2
    ng = 1
    for k in range(nq):
        ng = max(ng, S.iv[ST_GROUPS, k] + 1)
    # the step control's work, one block per call (e, the largest |q| per group, the
    # filtered estimate and its solve's scratch)
    blk = np.empty(nq + ng + 2 * (nq + 2))
    e = blk[:nq]
    gmax = blk[nq:nq + ng]
    eb = blk[nq + ng:2 * nq + ng + 2]
    ew = blk[2 * nq + ng + 2:]
    steps = 0
    rejected = 0
    retries = 0
    retry = False
    sampled = period > 0.0
    while True:
        stop = t_target
        if sampled:
            due = _sample_if_due(t, x, Q, jidx, tau, port, buf, period, samp, sample_t,
                                 sample_v)
            if due == PAUSED or due == LAW_FAILED:
                return (due, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
                        rejected, retries)
            if due == SAMPLED:
                continue
            t_event = samp[0] * period
            if t_target > t_event + 1e-12 * max(1.0, abs(t_event)):
                stop = t_event                   # the next instant comes first
        if not stop - t > 1e-12 * max(1.0, abs(stop)):
            if stop == t_target:
                break
            continue
        if not retry and (steps + rejected + retries >= max_steps or (
                taus.shape[0] > 0 and i0 + steps >= taus.shape[0])):
            return (PAUSED, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
                    rejected, retries)
        remaining = stop - t
        if adaptive:
            h = min(h_next, remaining)
            if remaining - h < LANDING_STRETCH * h:
                if retry and remaining > h_next:
                    h = 0.5 * remaining
                else:
                    h = remaining
            if h <= 1e-12 * max(1.0, abs(t)):
                return (SHRUNK, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
                        rejected, retries)
        else:
            n = max(1, int(np.ceil(remaining / step - 1e-9)))
            h = remaining / n
        landing = h < h_next
        ratio = h / (t - t_last) if t > t_last else 0.0
        if taus.shape[0] > 0:
            for k in range(jidx.shape[0]):
                tau[k] = taus[i0 + steps, k]
                Q[jidx[k]] = tau[k]
        elif pcode > 0:
            profile_values(pcode, pamp, ppar, t + h, tau)
            for k in range(jidx.shape[0]):
                Q[jidx[k]] = tau[k]
        if port != 0 and not sampled:
            status, xn, yn, accn = held_solve(P, K, D, g, stiff, Q, jidx, tau, x, y, acc,
                                              y_last, ratio, h, t + h, am, af, gamma, beta,
                                              rtol, atol, max_iters, JF, Mj, A, piv, S,
                                              state, counts, port, buf, law_state)
        else:
            status, xn, yn, accn = ga_solve(P, K, D, g, stiff, Q, jidx, tau, x, y, acc,
                                            y_last, ratio, h, am, af, gamma, beta, rtol,
                                            atol, max_iters, JF, Mj, A, piv, S, state,
                                            counts)
        if status == NON_FINITE or status == UNSETTLED or status == LAW_FAILED or (
                status == FAILED and not adaptive):
            return (status, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
                    rejected, retries)
        if status == FAILED:
            retries += 1
            h_next = 0.25 * h
            retry = True
            continue
        accept = True
        factor = 2.0
        if adaptive:
            s = 0.0
            c = h * h * (beta - 1.0 / 6.0)
            for k in range(nq):
                e[k] = c * (accn[k] - acc[k])
            ef = filtered_error_in(Mj, A, piv, S, e, eb, ew) if adaptive == 2 else e
            for k in range(ng):
                gmax[k] = 0.0
            for k in range(nq):
                gk = S.iv[ST_GROUPS, k]
                gmax[gk] = max(gmax[gk], q_scale[k], abs(xn[k]))
            for k in range(nq):
                sc = err_rtol * (1e-6 + gmax[S.iv[ST_GROUPS, k]])
                z = ef[k] / sc
                s += z * z
            err = np.sqrt(s / max(nq, 1))
            if err > 0.0:
                factor = min(2.0, max(0.2, 0.9 * err ** (-1.0 / 3.0)))
            accept = err <= 1.0
        if not accept:
            rejected += 1
            h_next = factor * h
            retry = True
            continue
        y_last, t_last = y, t
        t, x, y, acc = t + h, xn, yn, accn
        qs = np.empty(nq)
        for k in range(nq):
            qs[k] = max(q_scale[k], abs(xn[k]))
        q_scale = qs
        steps += 1
        retry = False
        if adaptive:
            if not landing or factor < 1.0:
                h_next = min(max_step, factor * h)
            else:
                h_next = min(max_step, h_next)
    return (OK, t, x, y, acc, y_last, t_last, h_next, q_scale, steps, rejected, retries)


@kernels._jit
def fixed_grid(t, targets, step, max_n):
    """The ends of the fixed steps from t through the output times ``targets`` (in
    order), the first ``max_n`` of them at most: the times :func:`ga_advance` and
    ``GeneralizedAlpha.advance`` reach, by the same arithmetic (equal sub-steps no
    longer than ``step`` per interval, each step h = remaining / ceil(remaining /
    step), t + h)."""
    n = 0
    for k in range(targets.shape[0]):
        n += int(np.ceil((targets[k] - (t if k == 0 else targets[k - 1])) / step)) + 1
        if n >= max_n:
            break
    out = np.empty(min(n, max_n))
    i = 0
    for k in range(targets.shape[0]):
        t_target = targets[k]
        while t_target - t > 1e-12 * max(1.0, abs(t_target)):
            if i == max_n:
                return out[:i]
            remaining = t_target - t
            m = max(1, int(np.ceil(remaining / step - 1e-9)))
            t = t + remaining / m
            if i == out.shape[0]:                # more steps than estimated: grow
                more = np.empty(2 * i + 1)
                more[:i] = out
                out = more
            out[i] = t
            i += 1
    return out[:i]


@kernels._jit
def ga_outputs(P, K, D, g, stiff, Q, jidx, tau, taus, pcode, pamp, ppar, t, targets, X, x,
               y, acc, y_last, t_last, step, adaptive, h_next, q_scale, err_rtol, max_step,
               am, af, gamma, beta, rtol, atol, max_iters, JF, Mj, A, piv, S, state, counts,
               max_steps, port, buf, law_state):
    """:func:`ga_advance` through the output times ``targets`` in turn, the state at each
    stored in the rows of X; the joint forces of every step from ``taus`` (the rows of
    :func:`fixed_grid`'s times), from the profile (pcode, pamp, ppar), from a law called
    through ``port`` (:func:`held_solve`), or constant;
    ``max_steps`` steps tried at most over all of them (PAUSED after).

    Returns (status, outputs reached, t, x, y, acc, y_last, t_last, h_next, q_scale,
    steps, rejected, retries): on a status other than OK the state where
    :func:`ga_advance` stopped (after the last output reached)."""
    steps = rejected = retries = 0
    reached = 0
    status = OK
    no_samp = np.zeros(0, dtype=np.int64)          # no sampled law (ga_advance's period 0)
    no_t = np.zeros(0)
    no_v = np.zeros((0, 0))
    for k in range(targets.shape[0]):
        (status, t, x, y, acc, y_last, t_last, h_next, q_scale, n, r,
         f) = ga_advance(P, K, D, g, stiff, Q, jidx, tau, taus, steps, pcode, pamp, ppar, t,
                         targets[k], x, y, acc, y_last, t_last, step, adaptive, h_next,
                         q_scale, err_rtol, max_step, am, af, gamma, beta, rtol, atol,
                         max_iters, JF, Mj, A, piv, S, state, counts,
                         max_steps - steps - rejected - retries, port, buf, law_state,
                         0.0, no_samp, no_t, no_v)
        steps += n
        rejected += r
        retries += f
        if status != OK:
            break
        X[k, :] = x
        reached += 1
    return (status, reached, t, x, y, acc, y_last, t_last, h_next, q_scale, steps,
            rejected, retries)


@kernels._jit
def ga_sampled(P, K, D, g, stiff, Q, jidx, tau, t, targets, X, x, y, acc, y_last, t_last,
               step, adaptive, h_next, q_scale, err_rtol, max_step, am, af, gamma, beta,
               rtol, atol, max_iters, JF, Mj, A, piv, S, state, counts, max_steps, port,
               buf, period, k_next, sample_t, sample_v):
    """:func:`ga_outputs` with a sampled joint-torque law (zero-order hold, no delay):
    the steps land on the sample instants t_k = k period as on the output times
    ``targets``; at each instant due (``SampledTorque._due`` of the reference engine,
    the same tolerances) the law is called through its port (:func:`call_port`: q, q_d
    into ``buf``, the value back from ``buf[2 nq:]``) and its value held in ``tau`` and Q
    until the next (:func:`_sample_if_due`, from within :func:`ga_advance`, which runs
    from one output to the next). ``k_next`` is the number of the next sample; the
    samples taken are stored in ``sample_t`` and ``sample_v`` (their capacity reached,
    the call pauses).

    Returns (status, outputs reached, samples taken, k_next, t, x, y, acc, y_last,
    t_last, h_next, q_scale, steps, rejected, retries); status OK, PAUSED, LAW_FAILED
    (at the failing sample's instant) or one of :func:`ga_advance`'s."""
    nj = jidx.shape[0]
    no_taus = np.zeros((0, nj))
    no_par = np.zeros(0)
    # a typed zero, not the literal 0: numba compiles a callee once more for each
    # literal argument value (here the whole step below ga_advance), see kernels._jit
    zero = np.int64(0)
    samp = np.array([k_next, 0], dtype=np.int64)
    steps = rejected = retries = 0
    reached = 0
    status = OK
    # one call of ga_advance per output, the samples taken inside it (not one call per
    # sample period)
    while reached < targets.shape[0]:
        (status, t, x, y, acc, y_last, t_last, h_next, q_scale, n, r,
         f) = ga_advance(P, K, D, g, stiff, Q, jidx, tau, no_taus, zero, zero, tau, no_par, t,
                         targets[reached], x, y, acc, y_last, t_last, step,
                         adaptive, h_next, q_scale, err_rtol, max_step, am, af, gamma,
                         beta, rtol, atol, max_iters, JF, Mj, A, piv, S, state, counts,
                         max_steps - steps - rejected - retries, port, buf, no_par, period,
                         samp, sample_t, sample_v)
        steps += n
        rejected += r
        retries += f
        if status != OK:
            break
        X[reached, :] = x
        reached += 1
    if status == OK:                     # the sample due where the last output is
        due = _sample_if_due(t, x, Q, jidx, tau, port, buf, period, samp, sample_t,
                             sample_v)
        if due == PAUSED or due == LAW_FAILED:
            status = due
    taken, k_next = samp[1], samp[0]
    return (status, reached, taken, k_next, t, x, y, acc, y_last, t_last, h_next, q_scale,
            steps, rejected, retries)
