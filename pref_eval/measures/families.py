"""Import every measure family so that it registers its specs.

One module per family, as trec_eval has one ``m_*.c`` per measure.
"""
from . import counts, ap, precision, recall, rr, bpref, infap, iprec, relstring  # noqa: F401
from . import setmeasures, ndcg, rbp, unjudged  # noqa: F401
from . import prefs, jg  # noqa: F401
from . import err, diversity, cwl, compat, accuracy, pgc, best_items, qmeasure, nerr, sakai, ndcg_jk  # noqa: F401
