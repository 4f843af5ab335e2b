"""numpy views over the custom element's Chrono storage (chrono_flex.chrono.element_views):
what a view reads and writes is what the bindings read and write, a view is refused where
the storage is not the one expected, and the element run through the views is the element
run through the bindings' copies, to the last bit."""

import numpy as np
import pytest

pytestmark = pytest.mark.pychrono


@pytest.fixture(scope="module")
def chrono():
    from chrono_flex.chrono._detect import require_pychrono

    return require_pychrono()


def test_vector_view_reads_and_writes_the_vectors_storage(chrono):
    from chrono_flex.chrono.element_views import vector_view

    x = chrono.ChState()
    x.SetVect([0.5, -1.0, 2.0, 7.0])
    head, view = vector_view(x, 4)
    assert view.tolist() == [0.5, -1.0, 2.0, 7.0]
    view[2] = 3.25                       # through the view, read by the bindings
    assert x.GetItem(2) == 3.25
    x.SetItem(0, -8.0)                   # through the bindings, read by the view
    assert view[0] == -8.0
    # a size other than the vector's: no view
    assert vector_view(x, 5) is None


def test_matrix_view_is_row_major_and_refuses_another_shape(chrono):
    from chrono_flex.chrono.element_views import matrix_view

    a = np.arange(6.0).reshape(2, 3)
    m = chrono.ChMatrixDynamicd(a)
    head, view = matrix_view(m, 2, 3)
    assert np.array_equal(view, a)
    view[1, 0] = -2.5
    assert m.GetItem(1, 0) == -2.5
    assert np.array_equal(m.to_numpy(), view)
    assert matrix_view(m, 3, 2) is None
    assert matrix_view(object(), 2, 3) is None   # not a SWIG proxy


class _Jacobians:
    def __init__(self, chrono, n):
        self.M, self.K, self.R = (chrono.ChMatrixDynamicd(np.zeros((n, n))) for _ in range(3))


class _Load:
    def __init__(self, chrono, nx, nw):
        self.state_x, self.state_w = chrono.ChState(), chrono.ChStateDelta()
        self.state_x.SetVect([0.0] * nx)
        self.state_w.SetVect([0.0] * nw)
        self.load_Q = chrono.ChVectorDynamicd(nw)


def test_views_notice_storage_that_moved(chrono):
    from chrono_flex.chrono.element_views import LoadViews

    load, jac = _Load(chrono, 4, 3), _Jacobians(chrono, 3)
    views = LoadViews.make(load, jac, 4, 3)
    assert views is not None and views.valid()
    views.Q[:] = [1.0, 2.0, 3.0]
    assert [load.load_Q.GetItem(i) for i in range(3)] == [1.0, 2.0, 3.0]
    jac.K.SetMatr([[1.0] * 5] * 5)       # resized by Chrono: its storage moves
    assert not views.valid()
    # sizes the load does not have: no views at all
    assert LoadViews.make(load, jac, 4, 4) is None


@pytest.mark.parametrize("jacobian,differences", [("auto", "arrays"), ("step", "chrono")])
def test_the_slider_crank_through_views_is_the_one_through_copies(jacobian, differences,
                                                                  monkeypatch):
    """The element reads x, w and writes Q, M, K, R through the views where it can (an
    Update's own ComputeQ) and through the bindings' copies otherwise (Chrono's
    differences): the same numbers either way, bit for bit."""
    from chrono_flex.chrono import element_views, scenes

    def run():
        sc = scenes.SliderCrank(jacobian=jacobian)
        sc.link.differences = differences
        return sc, scenes.run(sc.system, 1e-3, 0.03, sc.read)

    sc_views, with_views = run()
    assert isinstance(sc_views.link._views, element_views.LoadViews)
    monkeypatch.setattr(element_views.LoadViews, "make", classmethod(lambda cls, *a: None))
    sc_copies, with_copies = run()
    assert sc_copies.link._views is None
    assert np.array_equal(with_views, with_copies)
    assert sc_views.link.n_compute_q == sc_copies.link.n_compute_q
