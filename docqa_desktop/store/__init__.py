"""The one DuckDB file: schema, migrations and queries. Knows nothing of Qt, models or methods."""
from .database import Database, DatabaseDamaged, StoreBusy, StoreError

__all__ = ["Database", "DatabaseDamaged", "StoreBusy", "StoreError"]
