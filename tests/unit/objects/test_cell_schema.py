"""The cell database tables the migrations make are the ones the models
say."""

import os

from alembic import autogenerate
from alembic import migration as alembic_migration
import fixtures
import testtools

from nova_lite.db import api as db_api
from nova_lite.db import main_models
from nova_lite.db import migration


class TestMigrationMatchesModels(testtools.TestCase):

    def test_cell_database_has_no_drift(self):
        directory = self.useFixture(fixtures.TempDir()).path
        url = 'sqlite:///' + os.path.join(directory, 'cell.sqlite')
        migration.db_sync(url, migration.MAIN)
        self.addCleanup(db_api.dispose_all)
        with db_api.get_engine(url).connect() as connection:
            context = alembic_migration.MigrationContext.configure(
                connection)
            diff = autogenerate.compare_metadata(context,
                                                 main_models.Base.metadata)
        self.assertEqual([], diff)
