-- pgbench script for Benchmarks/postgres/run.sh: one POST /items as a server without group commit would commit
-- it, one transaction per write, on the tables ListServer's PostgreSQL store uses (its schema, migration 1): the
-- list's row locked and advanced (a new id and a new change sequence number; every client writes to the same
-- list, as every POST of the benchmark does, so these transactions take turns on that row as ListServer's groups
-- take turns on the list's lock), the item row, the change row with the whole item, and the NOTIFY other servers
-- listen for. ListServer commits the same rows per write, and one row lock, one NOTIFY and one sync per group.
\set n random(1, 1000000000)
BEGIN;
UPDATE lists SET next_id = next_id + 1, last_sequence = last_sequence + 1 WHERE name = 'pgbench'::bytea
    RETURNING next_id - 1 AS id, last_sequence AS seq \gset
INSERT INTO items (list, id, label, author, width, height, color, likes, revision, deleted, changed_at)
    VALUES ('pgbench'::bytea, :id, convert_to('posted by pgbench ' || :n, 'UTF8'), NULL, NULL, NULL, NULL, NULL,
        :seq, false, :seq);
INSERT INTO changes (list, sequence, kind, item_id, label, author, width, height, color, likes, version, seed,
        count, dropped)
    VALUES ('pgbench'::bytea, :seq, 'created', :id, convert_to('posted by pgbench ' || :n, 'UTF8'),
        convert_to('Ananya Iyer', 'UTF8'), 3000, 2000, convert_to('#31a76e', 'UTF8'), 0, NULL, NULL, NULL, false);
SELECT pg_notify('listserver_' || md5(current_schema()), :seq || ' 706762656e6368');
END;
