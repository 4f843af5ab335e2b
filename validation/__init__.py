"""chrono_flex validation suite: named cases comparing the formulations with closed forms
and with each other, run by ``chrono-flex validate`` (see :mod:`validation.runner`).

Cases live in :mod:`validation.cases` (verification) and :mod:`validation.regression`
(stored values with their date and reason, kept apart)."""
