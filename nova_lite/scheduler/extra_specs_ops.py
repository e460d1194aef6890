"""Matching a flavor extra spec against a value, as operators write them.

A requirement is either a plain value (string equality) or an operator and
its operand(s):

  ``= 4``        numeric, value >= 4 (a host with at least that much)
  ``== 4``       numeric equality;   ``!= 4``, ``>= 4``, ``<= 4`` likewise
  ``s== ssd``    string equality;    ``s!=``, ``s>=``, ``s<=``, ``s<``,
                 ``s>`` compare strings
  ``<in> ss``    the value contains the substring (the first word)
  ``<all-in> a b``  the value contains every word
  ``<or> a <or> b`` the value equals one of the alternatives

As in Nova, with one difference: a numeric comparison with a value that is
not a number is a mismatch here, where Nova's scheduler fails the request.
"""

import operator


def _number(text):
    return float(text)


_NUMERIC = {'=': operator.ge, '==': operator.eq, '!=': operator.ne,
            '>=': operator.ge, '<=': operator.le}
_STRING = {'s==': operator.eq, 's!=': operator.ne, 's>=': operator.ge,
           's<=': operator.le, 's<': operator.lt, 's>': operator.gt}


def match(value, requirement):
    """Whether ``value`` (a string) satisfies ``requirement``."""
    value = '' if value is None else str(value)
    words = str(requirement).split()
    if not words:
        return value == ''
    op = words[0]
    if op == '<or>':
        alternatives = [w for w in words[1:] if w != '<or>']
        return value in alternatives
    if '<or>' in words:
        return value in [w for w in words if w != '<or>']
    if op == '<in>':
        return len(words) > 1 and words[1] in value
    if op == '<all-in>':
        return len(words) > 1 and all(word in value for word in words[1:])
    if op in _NUMERIC and len(words) == 2:
        try:
            return _NUMERIC[op](_number(value), _number(words[1]))
        except ValueError:
            return False
    if op in _STRING and len(words) == 2:
        return _STRING[op](value, words[1])
    return value == str(requirement).strip()
