"""Versioned schema. Append a step to MIGRATIONS to change it; never edit a released step.

Ids instead of foreign keys: DuckDB cannot update or delete rows that a foreign key points at
inside one transaction, and every document is replaced in one transaction.
"""
from __future__ import annotations

import duckdb

from . import keywords

SCHEMA_V1 = """
CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE SEQUENCE library_ids;
CREATE SEQUENCE document_ids;
CREATE SEQUENCE page_ids;
CREATE SEQUENCE chunk_ids;

-- watched folders
CREATE TABLE libraries (
    id BIGINT PRIMARY KEY DEFAULT nextval('library_ids'),
    root VARCHAR NOT NULL UNIQUE,
    added_at TIMESTAMP DEFAULT current_timestamp
);

-- one row per distinct content (sha256): renamed, moved and duplicate files share it
CREATE TABLE documents (
    id BIGINT PRIMARY KEY DEFAULT nextval('document_ids'),
    sha256 VARCHAR NOT NULL,
    size BIGINT NOT NULL,
    pages INTEGER NOT NULL,
    title VARCHAR,
    parser_version INTEGER NOT NULL,
    indexed_at TIMESTAMP DEFAULT current_timestamp
);

-- one row per path on disk; doc_id is the last good index of that path (kept when a re-index fails)
CREATE TABLE files (
    path VARCHAR PRIMARY KEY,
    library_id BIGINT,
    doc_id BIGINT,
    size BIGINT,
    mtime DOUBLE,
    status VARCHAR NOT NULL,         -- indexed | error | pending
    error VARCHAR,
    updated_at TIMESTAMP DEFAULT current_timestamp
);

CREATE TABLE pages (
    id BIGINT PRIMARY KEY DEFAULT nextval('page_ids'),
    doc_id BIGINT NOT NULL,
    page INTEGER NOT NULL,           -- 1-based index in the file
    label VARCHAR NOT NULL,          -- printed page label
    width REAL NOT NULL,
    height REAL NOT NULL,
    text VARCHAR NOT NULL,
    text_source VARCHAR NOT NULL     -- layer | ocr | none
);

CREATE TABLE words (
    doc_id BIGINT NOT NULL,
    page INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    line INTEGER NOT NULL,
    text VARCHAR NOT NULL,
    x0 REAL, y0 REAL, x1 REAL, y1 REAL
);

CREATE TABLE elements (
    doc_id BIGINT NOT NULL,
    page INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    kind VARCHAR NOT NULL,           -- table | picture | text | section-header | caption | ...
    x0 REAL, y0 REAL, x1 REAL, y1 REAL,
    text VARCHAR NOT NULL            -- markdown
);

CREATE TABLE chunks (
    id BIGINT PRIMARY KEY DEFAULT nextval('chunk_ids'),
    doc_id BIGINT NOT NULL,
    page INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    text VARCHAR NOT NULL,
    embedding FLOAT[384]             -- all-MiniLM-L6-v2, L2-normalised
);

-- room for later stages: one row per (doc, page, producing model)
CREATE TABLE page_embeddings (doc_id BIGINT, page INTEGER, model VARCHAR, vectors BLOB, codes BLOB);
CREATE TABLE page_summaries (doc_id BIGINT, page INTEGER, model VARCHAR, summary VARCHAR,
                             created_at TIMESTAMP DEFAULT current_timestamp);
CREATE TABLE answers (id VARCHAR PRIMARY KEY, question VARCHAR, method VARCHAR, record JSON,
                      created_at TIMESTAMP DEFAULT current_timestamp);

CREATE INDEX pages_doc ON pages(doc_id, page);
CREATE INDEX chunks_doc ON chunks(doc_id);
"""

# Visual page embeddings: the quantized multi-vectors the search cache is built from. Full sign codes are
# the int8 codes' signs, so only the pooled ones are stored.
SCHEMA_V2 = """
DROP TABLE page_embeddings;
CREATE TABLE page_vectors (
    doc_id BIGINT NOT NULL,
    page INTEGER NOT NULL,
    model VARCHAR NOT NULL,          -- the page embedder that wrote them; queries must use the same one
    vector_count INTEGER NOT NULL,
    grid_rows INTEGER NOT NULL,      -- visual tokens over the page image, row-major
    grid_cols INTEGER NOT NULL,
    int8 BLOB NOT NULL,              -- [vector_count, 128] int8
    scales BLOB NOT NULL,            -- [vector_count] float32: vector = int8 * scale
    pooled_signs BLOB NOT NULL,      -- [m, 2] uint64: sign codes of a few centroids, the search's first stage
    patch_rows BLOB NOT NULL         -- [grid_rows * grid_cols] int32: the vector describing each grid cell
);
CREATE INDEX page_vectors_doc ON page_vectors(doc_id, page);
"""

# The kind v3 gave the page summaries it moved in. The name is data, not a reference to a method: databases hold
# it, and the page summariser (methods/toolkit/page_summaries.py) still writes it; repair gives it to the summaries
# it salvages from a file older than v3 (store/repair.py), as this step would have.
V3_PAGE_SUMMARY_KIND = "simpledoc.page-summary"

# Text a model derived from a page or a page element, for any method: page summaries (V3_PAGE_SUMMARY_KIND,
# item 0), picture and chart descriptions ('element-description', item = the element's seq), later summary-tree
# nodes. One row per (kind, doc_id, page, item): a newer text replaces an older one whatever model wrote it
# (store/artifacts.py). Page summaries move in (one per page, the newest if a page somehow had several) and their
# table goes. (The same statements every v2 database was migrated with: the kind is interpolated, not changed.)
SCHEMA_V3 = f"""
CREATE TABLE artifacts (
    kind VARCHAR NOT NULL,
    doc_id BIGINT NOT NULL,
    page INTEGER NOT NULL,
    item INTEGER NOT NULL DEFAULT 0, -- which part of the page (an element's seq); 0 for the whole page
    model VARCHAR NOT NULL,          -- the model that wrote it
    value VARCHAR NOT NULL,
    created_at TIMESTAMP DEFAULT current_timestamp
);
INSERT INTO artifacts (kind, doc_id, page, item, model, value, created_at)
SELECT DISTINCT ON (doc_id, page) '{V3_PAGE_SUMMARY_KIND}', doc_id, page, 0, model, summary,
       coalesce(created_at, current_timestamp)
FROM page_summaries
WHERE doc_id IS NOT NULL AND page IS NOT NULL AND model IS NOT NULL AND summary IS NOT NULL
ORDER BY doc_id, page, created_at DESC NULLS LAST;
DROP TABLE page_summaries;
CREATE INDEX artifacts_page ON artifacts(kind, doc_id, page);
"""

# Summary trees (store/summary_trees.py: a method's cross-page index, built ahead of questions): per document and
# summarising model, layers of LLM summaries of clustered chunks. Layer 1 summarises chunks (children = chunk
# ids), layer n > 1 summarises layer n-1 (children = node ids). A layer is planned in one transaction (its nodes with text
# NULL), then each summary is written on its own, so a killed build resumes where it stopped; tree_builds
# marks a document's tree as finished. Nodes go with their document; `docqa repair` does not carry them over
# (their children are chunk ids of the old file) and the prepare step builds them again.
SCHEMA_V4 = """
CREATE SEQUENCE tree_node_ids;
CREATE TABLE tree_nodes (
    id BIGINT PRIMARY KEY DEFAULT nextval('tree_node_ids'),
    doc_id BIGINT NOT NULL,
    model VARCHAR NOT NULL,          -- the model that wrote the summaries
    layer INTEGER NOT NULL,          -- 1: summaries of chunks; n: summaries of layer n-1
    seq INTEGER NOT NULL,            -- the cluster's number within its layer
    children BIGINT[] NOT NULL,      -- chunk ids (layer 1) or node ids (layer n-1)
    pages INTEGER[] NOT NULL,        -- the pages the node's leaves lie on
    text VARCHAR,                    -- NULL until summarised
    embedding FLOAT[384],            -- all-MiniLM-L6-v2 of the text, like the chunks
    created_at TIMESTAMP DEFAULT current_timestamp,
    UNIQUE (doc_id, model, layer, seq)  -- two builders planning one layer: the second fails, nothing doubles
);
CREATE INDEX tree_nodes_doc ON tree_nodes(doc_id, model, layer);
CREATE TABLE tree_builds (
    doc_id BIGINT NOT NULL,
    model VARCHAR NOT NULL,
    layers INTEGER NOT NULL,         -- summary layers built
    finished_at TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (doc_id, model)
);
"""

# The keyword index's rows (store/keywords.py): added and deleted with each document instead of DuckDB FTS's
# whole-library snapshot. Existing documents are given theirs by the same statements new ones use.
# Enrichment (store/enrichment.py): which background passes have finished a document. Layout used to run while
# parsing, so documents that have layout elements have had it.
SCHEMA_V5 = """
CREATE TABLE enrichment (doc_id BIGINT NOT NULL, stage VARCHAR NOT NULL,
                         finished_at TIMESTAMP DEFAULT current_timestamp, PRIMARY KEY (doc_id, stage));
INSERT INTO enrichment (doc_id, stage) SELECT DISTINCT doc_id, 'layout' FROM elements;
CREATE SEQUENCE keyword_term_ids;
CREATE TABLE keyword_terms (id INTEGER PRIMARY KEY DEFAULT nextval('keyword_term_ids'), term VARCHAR NOT NULL UNIQUE);
CREATE TABLE keyword_postings (doc_id BIGINT NOT NULL, page INTEGER NOT NULL, term_id INTEGER NOT NULL,
                               tf SMALLINT NOT NULL);
CREATE TABLE keyword_pages (doc_id BIGINT NOT NULL, page INTEGER NOT NULL, length INTEGER NOT NULL);
CREATE TABLE keyword_stopwords (word VARCHAR NOT NULL);
""" + keywords.stopwords_sql() + ";" + keywords.index_pages_sql("pages") + """
DROP SCHEMA IF EXISTS fts_main_pages CASCADE;
DELETE FROM meta WHERE key = 'fts_stale';
"""

# Chunk embeddings move to a table of their own: asking which chunks of `chunks` have one read the whole
# embedding column (0.6 s at 711,000 chunks, on every search after a batch was embedded), and an embedding is now
# an INSERT instead of an UPDATE of a list column. chunks.embedding stays, always NULL: dropping it is an ALTER
# TABLE, which DuckDB 1.4 cannot replay from its WAL on a table with a nextval() default (the file no longer opens).
SCHEMA_V6 = """
CREATE TABLE chunk_vectors (
    id BIGINT PRIMARY KEY,           -- the chunk's id
    doc_id BIGINT NOT NULL,
    page INTEGER NOT NULL,
    embedding FLOAT[384] NOT NULL    -- all-MiniLM-L6-v2, L2-normalised
);
INSERT INTO chunk_vectors SELECT id, doc_id, page, embedding FROM chunks WHERE embedding IS NOT NULL;
UPDATE chunks SET embedding = NULL WHERE embedding IS NOT NULL;
"""

# What a library lists a document by (store/document_info.py): title, authors and year from its metadata or its
# first page (pdf/metadata.py). A table of its own, not columns of `documents` (an ALTER TABLE there is what DuckDB
# 1.4 cannot replay from its WAL, see V6). Empty here: the next index run fills it for the documents indexed
# before, and again for all of them when the heuristics change (`version`). (IF NOT EXISTS: tests roll a file
# back to an older version by its meta row alone.)
SCHEMA_V7 = """
CREATE TABLE IF NOT EXISTS document_info (
    doc_id BIGINT PRIMARY KEY,
    title VARCHAR NOT NULL,          -- '' when neither the metadata nor page 1 gives one
    authors VARCHAR NOT NULL,        -- 'Ann Lee, Bo Chen', or ''
    year INTEGER,
    version INTEGER NOT NULL         -- the heuristics that found them (index/describe.py: INFO_VERSION)
);
"""

# Tables read as tables (index/stages/tables.py, store/tables.py): each table of a page with its box, caption and
# scale, and its cells with their boxes, header paths and figures. Empty here: the next index run reads the tables
# of the documents indexed before (the stage resumes from `enrichment`).
SCHEMA_V8 = """
CREATE TABLE IF NOT EXISTS page_tables (
    doc_id BIGINT NOT NULL,
    page INTEGER NOT NULL,
    table_no INTEGER NOT NULL,       -- in the page's order
    x0 REAL, y0 REAL, x1 REAL, y1 REAL,
    caption VARCHAR NOT NULL,
    scale DOUBLE NOT NULL,           -- 1e6 for "$ in millions"
    n_rows INTEGER NOT NULL,
    n_columns INTEGER NOT NULL,
    header_rows INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS table_cells (
    doc_id BIGINT NOT NULL,
    page INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    row_no INTEGER NOT NULL,
    column_no INTEGER NOT NULL,
    text VARCHAR NOT NULL,
    row_path VARCHAR NOT NULL,
    column_path VARCHAR NOT NULL,
    number DOUBLE,
    x0 REAL, y0 REAL, x1 REAL, y1 REAL
);
"""

# Tables with their header rows as cells and each cell's span (issue 54: exported as the page has them), tables read
# from scans marked. The reader changed with them: every document's tables are read again on the next index run.
SCHEMA_V9 = """
ALTER TABLE table_cells ADD COLUMN IF NOT EXISTS row_span INTEGER DEFAULT 1;
ALTER TABLE table_cells ADD COLUMN IF NOT EXISTS column_span INTEGER DEFAULT 1;
ALTER TABLE table_cells ADD COLUMN IF NOT EXISTS header BOOLEAN DEFAULT false;
ALTER TABLE page_tables ADD COLUMN IF NOT EXISTS from_scan BOOLEAN DEFAULT false;
DELETE FROM table_cells;
DELETE FROM page_tables;
DELETE FROM enrichment WHERE stage = 'tables';
"""

# Charts read as tables (issue 55: index/stages/charts.py) share the tables' rows: a table's `chart` is its kind ("bar
# chart"; '' for a table), `by_model` marks one the vision model read from a picture, and a cell `from_axis` a value
# read off the axis scale (no label printed). Rows already there are tables: the defaults say so.
SCHEMA_V10 = """
ALTER TABLE page_tables ADD COLUMN IF NOT EXISTS chart VARCHAR DEFAULT '';
ALTER TABLE page_tables ADD COLUMN IF NOT EXISTS by_model BOOLEAN DEFAULT false;
ALTER TABLE table_cells ADD COLUMN IF NOT EXISTS from_axis BOOLEAN DEFAULT false;
"""

# The chart reader learnt stacked bars up, stack totals, dot plots, line charts whose labels stand far below, and
# pies (issue 55): every document's charts are read again on the next index run (a chart's table_no is 1000 on).
SCHEMA_V11 = """
DELETE FROM table_cells WHERE table_no >= 1000;
DELETE FROM page_tables WHERE table_no >= 1000;
DELETE FROM enrichment WHERE stage IN ('charts', 'charts by model');
"""

# (version, SQL) in order; the database records the highest applied version in meta.
MIGRATIONS: list[tuple[int, str]] = [
    (1, SCHEMA_V1),
    (2, SCHEMA_V2),
    (3, SCHEMA_V3),
    (4, SCHEMA_V4),
    (5, SCHEMA_V5),
    (6, SCHEMA_V6),
    (7, SCHEMA_V7),
    (8, SCHEMA_V8),
    (9, SCHEMA_V9),
    (10, SCHEMA_V10),
    (11, SCHEMA_V11),
]
LATEST = MIGRATIONS[-1][0]


def current_version(con: duckdb.DuckDBPyConnection) -> int:
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'meta'").fetchone()[0]
    if not exists:
        return 0
    row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def migrate(con: duckdb.DuckDBPyConnection) -> int:
    """Bring the schema to LATEST, each step in its own transaction (a kill or an error mid-step leaves the
    file at the previous step). Returns the version reached. Database refuses a newer schema and backs the file
    up before calling this."""
    version = current_version(con)
    for step, sql in MIGRATIONS:
        if step <= version:
            continue
        con.execute("BEGIN")
        try:
            con.execute(sql)
            con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(step)])
            con.execute("COMMIT")
        except BaseException:
            try:
                con.execute("ROLLBACK")  # the file stays at the last finished step
            except duckdb.Error:
                pass  # a failed COMMIT has already ended the transaction
            raise
        version = step
    return version
