"""Records from the user's own data, for ``lexcodecs compare``: JSON Lines, CSV, an SQLite
table or query, Parquet, and keys already in a store.

Theory of operation: every reader returns :class:`Records` -- the key schema, the rows (one
tuple of values per record, in the schema's order), a description of the source for the
report, whether the schema was proposed from the input's declared types, and the input's
name of each key column. The user names the key columns and their order in *key text*
(``"user_id, created desc nulls last"``: the schema grammar, types optional,
:func:`parse_key`) or with a schema whose fields are matched to the columns by name; a type
the user does not give is proposed from what the input declares (SQLite declared types, the
Parquet schema, a self-describing format's keys), and an input that declares none (CSV) must
be given them -- the error shows the key text to copy, the types guessed from the data.

Every row is read and checked; at most *limit* rows are kept, a uniform sample (seeded) when
there are more, so memory follows the limit and time the input. Whatever the input holds,
a problem is a :class:`SourceError` (a :class:`~lexcodecs.errors.LexCodecError`) naming the
source, the line or row, the column and the reason; files and databases are only read.

The modules: :mod:`~lexcodecs.sources.records` (Records, SourceError, the reading loop),
:mod:`~lexcodecs.sources.key` (key text and the choice of columns),
:mod:`~lexcodecs.sources.values` (reading a value of each field type),
:mod:`~lexcodecs.sources.files` (JSON Lines and CSV files; a JSON Lines record is
:mod:`~lexcodecs.sources.jsonl`'s), :mod:`~lexcodecs.sources.sqlite`,
:mod:`~lexcodecs.sources.parquet` and :mod:`~lexcodecs.sources.stores` (keys in SQLite and
LMDB), :mod:`~lexcodecs.sources.raw_keys` (stored keys as bytes, undecoded, for ``lexcodecs
identify``: hex lines, SQLite, LMDB, RocksDB), and :mod:`~lexcodecs.sources.paths` (every
path checked before it is opened: a named pipe, a socket or a device is refused, as reading
one may wait for ever). docs/your-data.md is the guide.
"""

from .files import read_csv, read_jsonl
from .key import KeyColumn, field_name, parse_key
from .parquet import arrow_field_type, read_parquet
from .raw_keys import RawKeys, read_raw_hex, read_raw_lmdb, read_raw_rocksdb, read_raw_sqlite
from .records import DEFAULT_LIMIT, Records, SourceError
from .sqlite import read_sqlite, sqlite_field_type
from .stores import read_lmdb_keys, read_sqlite_keys
from .values import TEXT_FORMS, guess_type

__all__ = [
    "DEFAULT_LIMIT",
    "TEXT_FORMS",
    "KeyColumn",
    "RawKeys",
    "Records",
    "SourceError",
    "arrow_field_type",
    "field_name",
    "guess_type",
    "parse_key",
    "read_csv",
    "read_jsonl",
    "read_lmdb_keys",
    "read_parquet",
    "read_raw_hex",
    "read_raw_lmdb",
    "read_raw_rocksdb",
    "read_raw_sqlite",
    "read_sqlite",
    "read_sqlite_keys",
    "sqlite_field_type",
]
