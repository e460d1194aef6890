"""The placement tables the migrations make are the ones the models say."""

from alembic import autogenerate
from alembic import migration as alembic_migration
import testtools

from nova_lite.db import api as db_api
from nova_lite.db import api_models
from tests.unit.placement import base


class TestMigrationMatchesModels(testtools.TestCase):

    def test_api_database_has_no_drift(self):
        engine = db_api.sa.create_engine(
            'sqlite:///' + base._template_database())
        self.addCleanup(engine.dispose)
        with engine.connect() as connection:
            context = alembic_migration.MigrationContext.configure(
                connection)
            diff = autogenerate.compare_metadata(context,
                                                 api_models.Base.metadata)
        self.assertEqual([], diff)
