"""chrono_flex validation suite: named cases comparing the formulations with closed forms
and with each other, run by ``chrono-flex validate`` (see :mod:`chrono_flex.validation.runner`).

Cases live in :mod:`chrono_flex.validation.cases` (verification) and :mod:`chrono_flex.validation.regression`
(stored values with their date and reason, kept apart)."""
