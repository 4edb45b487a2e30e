-- pgbench script for Benchmarks/postgres/run.sh: the same rows as pgbench-writes.sql for :g writes at once, in one
-- transaction (set with -D g=N): a group commit done by PostgreSQL alone, with no HTTP, no JSON and no server in
-- between; the most writes/s this machine's PostgreSQL takes in groups of that size (the yardstick ListServer's
-- group commit is held against, beside the per-write script).
BEGIN;
UPDATE lists SET next_id = next_id + :g, last_sequence = last_sequence + :g WHERE name = 'pgbench'::bytea
    RETURNING next_id - :g AS first_id, last_sequence - :g AS first_seq \gset
INSERT INTO items (list, id, label, author, width, height, color, likes, revision, deleted, changed_at)
    SELECT 'pgbench'::bytea, :first_id + n, convert_to('posted by pgbench ' || n, 'UTF8'), NULL, NULL, NULL, NULL,
        NULL, :first_seq + 1 + n, false, :first_seq + :g
    FROM generate_series(0, :g - 1) AS n;
INSERT INTO changes (list, sequence, kind, item_id, label, author, width, height, color, likes, version, seed,
        count, dropped)
    SELECT 'pgbench'::bytea, :first_seq + 1 + n, 'created', :first_id + n, convert_to('posted by pgbench ' || n, 'UTF8'),
        convert_to('Ananya Iyer', 'UTF8'), 3000, 2000, convert_to('#31a76e', 'UTF8'), 0, NULL, NULL, NULL, false
    FROM generate_series(0, :g - 1) AS n;
SELECT pg_notify('listserver_' || md5(current_schema()), :first_seq + :g || ' 706762656e6368');
END;
