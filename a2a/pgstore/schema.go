package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/castor-dev/castor/a2a/pgstore/internal/pgwire"
)

// migrations are the schema's versions, applied in order; the number of
// those applied is kept in castor_schema. A released migration never
// changes: a new version is a new entry.
var migrations = []string{
	// 1: tasks, their lists as rows, pending confirmations, leases.
	`CREATE TABLE castor_tasks (
		id          text PRIMARY KEY,
		context_id  text NOT NULL,
		state       text NOT NULL,
		status_ts   text NOT NULL,
		last_active bigint NOT NULL, -- Unix nanoseconds: timestamptz keeps microseconds
		version     bigint NOT NULL,
		status      bytea NOT NULL,
		settings    bytea NOT NULL,
		metadata    bytea NOT NULL,
		push        bytea NOT NULL
	);
	CREATE INDEX castor_tasks_last_active ON castor_tasks (last_active);
	-- kind: 0 history, 1 conversation, 2 artifacts; seq: the index.
	CREATE TABLE castor_items (
		task_id text NOT NULL REFERENCES castor_tasks (id) ON DELETE CASCADE,
		kind    smallint NOT NULL,
		seq     integer NOT NULL,
		body    bytea NOT NULL,
		PRIMARY KEY (task_id, kind, seq)
	);
	CREATE TABLE castor_pending (
		task_id text NOT NULL REFERENCES castor_tasks (id) ON DELETE CASCADE,
		ord     integer NOT NULL,
		call_id text NOT NULL,
		body    bytea NOT NULL,
		PRIMARY KEY (task_id, ord)
	);
	CREATE INDEX castor_pending_call ON castor_pending (task_id, call_id);
	CREATE TABLE castor_leases (
		task_id text PRIMARY KEY,
		holder  text NOT NULL,
		expires timestamptz NOT NULL
	);
	-- Aborts the transaction (SQLSTATE CA409) unless the task is at
	-- version prev (0: not stored), locking its row for the save.
	CREATE FUNCTION castor_expect_version(task text, prev bigint) RETURNS void
	LANGUAGE plpgsql AS $$
	BEGIN
		IF prev = 0 THEN
			IF EXISTS (SELECT 1 FROM castor_tasks WHERE id = task) THEN
				RAISE EXCEPTION 'task % is stored already', task USING ERRCODE = 'CA409';
			END IF;
		ELSE
			PERFORM 1 FROM castor_tasks WHERE id = task AND version = prev FOR UPDATE;
			IF NOT FOUND THEN
				RAISE EXCEPTION 'task % is not at version %', task, prev USING ERRCODE = 'CA409';
			END IF;
		END IF;
	END $$;`,
	// 2: a running turn's events, read by sequence by the replicas
	// relaying them, and its streamed text, saved before it is sent.
	`CREATE TABLE castor_events (
		task_id  text NOT NULL REFERENCES castor_tasks (id) ON DELETE CASCADE,
		seq      bigint GENERATED ALWAYS AS IDENTITY,
		version  bigint NOT NULL, -- the task's version the turn held
		created  timestamptz NOT NULL DEFAULT now(),
		body     bytea,   -- the event as relayed (NULL: none)
		text_idx integer, -- streamed text: the history message it is in,
		text_at  integer, -- the length of that message's text before it,
		text     text,    -- the text it adds,
		msg      bytea,   -- or the message it starts
		PRIMARY KEY (task_id, seq)
	);
	CREATE INDEX castor_events_version ON castor_events (task_id, version);`,
}

// conflictCode is the SQLSTATE castor_expect_version raises.
const conflictCode = "CA409"

// migrateLock is the advisory lock replicas starting at once take while
// they migrate, so that one applies each version.
const migrateLock = 0x63617374 // "cast"

// migrate brings the database's schema to the latest version. A database
// from a newer Castor (more versions than this one knows) is refused
// rather than written with an older shape.
func (s *Store) migrate(ctx context.Context) error {
	return s.inTx(ctx, "BEGIN", func(c *pgwire.Conn) error {
		if _, err := exec(ctx, c, `SELECT pg_advisory_xact_lock($1)`, migrateLock); err != nil {
			return err
		}
		if _, err := simple(ctx, c, `CREATE TABLE IF NOT EXISTS castor_schema (version integer NOT NULL)`); err != nil {
			return err
		}
		var have int32
		err := queryRow(ctx, c, `SELECT version FROM castor_schema`, nil, &have)
		switch {
		case errors.Is(err, errNoRows):
			if _, err := simple(ctx, c, `INSERT INTO castor_schema VALUES (0)`); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		if int(have) > len(migrations) {
			return fmt.Errorf("the database's schema is version %d, newer than this castor's %d: upgrade castor", have, len(migrations))
		}
		for v := int(have); v < len(migrations); v++ {
			if _, err := simple(ctx, c, migrations[v]); err != nil {
				return fmt.Errorf("schema version %d: %w", v+1, err)
			}
		}
		_, err = exec(ctx, c, `UPDATE castor_schema SET version = $1`, len(migrations))
		return err
	})
}
