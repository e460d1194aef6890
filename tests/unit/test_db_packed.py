"""db.packed: many rows read as one value, and never a wrong row when
the value cannot be split back into them."""

import sqlalchemy as sa
import testtools

from nova_lite.db import packed

METADATA = sa.MetaData()
TABLE = sa.Table('things', METADATA,
                 sa.Column('id', sa.Integer, primary_key=True),
                 sa.Column('name', sa.String(64)),
                 sa.Column('note', sa.String(64), nullable=True))
US = packed.UNIT


class _Answer:
    """A session whose query answers (value, count) as given."""

    def __init__(self, value, count):
        self.answer = (value, count)

    def execute(self, *args, **kwargs):
        return self

    def one(self):
        return self.answer


class TestPackedRows(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.engine = sa.create_engine('sqlite://')
        METADATA.create_all(self.engine)
        self.query = packed.statement([TABLE.c.id, TABLE.c.name,
                                       TABLE.c.note], table=TABLE)

    def read(self, *rows):
        with self.engine.begin() as connection:
            connection.execute(sa.delete(TABLE))
            if rows:
                connection.execute(sa.insert(TABLE), [
                    dict(id=i, name=name, note=note)
                    for i, (name, note) in enumerate(rows, 1)])
            return packed.rows(connection, self.query)

    def test_the_rows_come_back_as_text_null_as_empty(self):
        self.assertEqual([], self.read())
        self.assertEqual(
            [('1', 'a', ''), ('2', 'b:c', 'some note')],
            sorted(self.read(('a', None), ('b:c', 'some note'))))

    def test_a_separator_in_a_value_gives_none(self):
        self.assertIsNone(self.read(('a', 'x, y'), ('b', None)))
        self.assertIsNone(self.read(('a', 'x%sy' % US), ('b', None)))
        self.assertIsNone(self.read(('a', None), ('b', 'ends with,')))

    def test_a_value_cut_short_gives_none(self):
        whole = '1%sa%s%s,2%sb%slast%s' % (US, US, US, US, US, US)
        self.assertEqual([('1', 'a', ''), ('2', 'b', 'last')],
                         packed.rows(_Answer(whole, 2), self.query))
        # Cut anywhere, the last separator at least is gone.
        for end in range(len(whole) - 1):
            self.assertIsNone(packed.rows(_Answer(whole[:end], 2),
                                          self.query), end)

    def test_a_cut_and_a_separator_too_many_do_not_cancel_out(self):
        # A ',' in the first note and the string cut by one field: as
        # many fields as counted, but not where they belong.
        value = '1%sa%sx,y%s,2%sb%snote%s' % (US, US, US, US, US, US)
        self.assertIsNone(packed.rows(_Answer(value[:-1], 2), self.query))

    def test_uuids_not_in_their_stored_form_are_left_out(self):
        uuid = '5c8f4f33-6a7e-4e55-9a2b-0c6f1f2b9d10'
        clause = packed.uuids_in(TABLE.c.name, [
            uuid, uuid.upper(), "x' OR '1'='1", 7, None])
        self.assertEqual("things.name IN ('%s')" % uuid, str(clause))
        self.assertEqual('false', str(packed.uuids_in(TABLE.c.name, [
            "x' OR '1'='1"])))
