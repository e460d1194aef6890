"""A flavor extra spec requirement against a value, operator by operator."""

import testtools

from nova_lite.scheduler import extra_specs_ops
from tests.unit.scheduler.fakes import add_cases

MATCH_CASES = [
    # name, value, requirement, matches
    ('plain_value_equal', 'true', 'true', True),
    ('plain_value_different', 'false', 'true', False),
    ('plain_value_is_case_sensitive', 'True', 'true', False),
    ('plain_value_ignores_surrounding_spaces', 'ssd', '  ssd ', True),
    ('plain_value_with_spaces_is_compared_whole', 'fast ssd', 'fast ssd',
     True),
    ('plain_value_with_spaces_is_not_a_substring', 'ssd', 'fast ssd',
     False),
    ('none_value_reads_as_empty', None, '', True),
    ('empty_requirement_wants_an_empty_value', 'ssd', '', False),
    # "=" means "at least": a host with more of it qualifies.
    ('equals_sign_is_at_least_on_equal', '4', '= 4', True),
    ('equals_sign_is_at_least_on_more', '8', '= 4', True),
    ('equals_sign_is_at_least_on_less', '2', '= 4', False),
    ('double_equals_is_numeric_equality', '4.0', '== 4', True),
    ('double_equals_is_numeric_inequality', '5', '== 4', False),
    ('not_equal_numeric', '5', '!= 4', True),
    ('not_equal_numeric_on_an_equal_number', '4.0', '!= 4', False),
    ('at_least', '4', '>= 4', True),
    ('at_least_on_less', '3.9', '>= 4', False),
    ('at_most', '4', '<= 4', True),
    ('at_most_on_more', '5', '<= 4', False),
    ('numeric_compares_numbers_not_text', '10', '>= 9', True),
    ('numeric_on_a_non_numeric_value_fails', 'lots', '>= 4', False),
    ('numeric_with_a_non_numeric_operand_fails', '4', '>= four', False),
    ('string_equal', 'ssd', 's== ssd', True),
    ('string_equal_on_another_string', 'hdd', 's== ssd', False),
    ('string_not_equal', 'hdd', 's!= ssd', True),
    ('string_not_equal_on_the_same_string', 'ssd', 's!= ssd', False),
    ('string_less_than_compares_text_not_numbers', '10', 's< 9', True),
    ('string_greater_than', 'b', 's> a', True),
    ('string_at_least_on_equal', 'a', 's>= a', True),
    ('string_at_most_on_greater', 'b', 's<= a', False),
    ('in_finds_a_substring', 'Intel Xeon Gold', '<in> Xeon', True),
    ('in_finds_a_substring_with_spaces', 'Intel Xeon Gold',
     '<in> Xeon Gold', True),
    ('in_without_the_substring', 'AMD EPYC', '<in> Xeon', False),
    ('all_in_with_every_word_in_a_list_literal', "['aes', 'avx', 'sse']",
     '<all-in> aes sse', True),
    ('all_in_with_a_word_missing_from_a_list_literal', "['aes', 'sse']",
     '<all-in> aes avx', False),
    ('all_in_with_every_word_in_plain_words', 'aes avx sse',
     '<all-in> avx aes', True),
    # As Nova: each word is looked for as a substring.
    ('all_in_looks_for_substrings', 'aesni', '<all-in> aes', True),
    ('in_looks_for_the_first_word_only', 'Intel Xeon', '<in> Xeon Gold',
     True),
    ('or_matches_the_first_alternative', 'gold',
     '<or> gold <or> silver', True),
    ('or_matches_the_last_alternative', 'silver',
     '<or> gold <or> silver', True),
    ('or_without_a_matching_alternative', 'bronze',
     '<or> gold <or> silver', False),
    ('or_without_a_leading_operator', 'silver', 'gold <or> silver', True),
]


def check_match(self, value, requirement, matches):
    self.assertEqual(matches, extra_specs_ops.match(value, requirement))


@add_cases(MATCH_CASES, check_match)
class TestMatch(testtools.TestCase):
    pass
