"""Each operation kind is named in at most 3 product files (its engine record, its display record, its own plot)
and in 2.5 on average (issue 45: an operation is one record); tests/op_kind_count.py prints the counts."""

from tests.op_kind_count import counts


def test_each_operation_kind_is_named_in_at_most_three_product_files():
    where = counts()
    assert len(where) >= 21  # the kinds the graph builder gives its stages were found
    too_many = {kind: files for kind, files in where.items() if len(files) > 3}
    assert not too_many, f"op kinds named outside their records: {too_many}"
    assert sum(len(files) for files in where.values()) / len(where) <= 2.5
