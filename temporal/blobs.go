package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// BlobStore keeps payloads too large for a turn's history (tool results, attachments, long
// conversations), which then holds a reference to each. Keys name content (a hash of it), so a
// Put of a key already kept may do nothing. Implement it on S3 or the like with your own
// client; FileBlobs and PostgresBlobs are here.
type BlobStore interface {
	Put(ctx context.Context, key string, data []byte) error
	// Get returns what Put kept under key, or an error matching os.ErrNotExist.
	Get(ctx context.Context, key string) ([]byte, error)
}

// DefaultBlobThreshold is the size over which a payload goes to the blob store, unless
// [NewBlobConverter] is told otherwise: Temporal warns about payloads from 512 KiB.
const DefaultBlobThreshold = 128 << 10

// MaxExternalPayloadBytes is the largest [Config.MaxPayloadBytes] with a [BlobConverter]: what
// one value of a turn may take when the history holds references only.
const MaxExternalPayloadBytes = 256 << 20

// blobTimeout bounds one call of the store: a codec has no context of its own.
const blobTimeout = time.Minute

// blobEncoding marks a payload that is a reference to a blob.
const blobEncoding = "wield/blob"

// BlobConverter is a data converter whose payloads over a threshold are kept in a BlobStore.
// Give it to the Temporal client (sdkclient.Options.DataConverter) of every worker and client of
// the agent, and to [Config.DataConverter], which then allows bounds up to
// MaxExternalPayloadBytes.
type BlobConverter struct {
	converter.DataConverter
}

// NewBlobConverter returns base (nil: the SDK's default) with its payloads over threshold bytes
// (0: DefaultBlobThreshold) kept in store. Put it outside other codecs: payloads are encrypted
// or compressed first, and what the store keeps is what the history would have held.
func NewBlobConverter(store BlobStore, threshold int, base converter.DataConverter) (*BlobConverter, error) {
	if store == nil {
		return nil, errors.New("temporal: nil blob store")
	}
	if threshold <= 0 {
		threshold = DefaultBlobThreshold
	}
	if base == nil {
		base = converter.GetDefaultDataConverter()
	}
	return &BlobConverter{converter.NewCodecDataConverter(base, &blobCodec{store: store, threshold: threshold})}, nil
}

// blobCodec moves large payloads to a store and back.
type blobCodec struct {
	store     BlobStore
	threshold int
}

// Encode implements converter.PayloadCodec.
func (c *blobCodec) Encode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		if p.Size() <= c.threshold {
			out[i] = p
			continue
		}
		b, err := p.Marshal()
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		key := "sha256-" + hex.EncodeToString(sum[:])
		ctx, cancel := context.WithTimeout(context.Background(), blobTimeout)
		err = c.store.Put(ctx, key, b)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("temporal: keeping a payload of %d bytes in the blob store: %w", len(b), err)
		}
		out[i] = &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte(blobEncoding)}, Data: []byte(key)}
	}
	return out, nil
}

// Decode implements converter.PayloadCodec.
func (c *blobCodec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != blobEncoding {
			out[i] = p
			continue
		}
		key := string(p.GetData())
		ctx, cancel := context.WithTimeout(context.Background(), blobTimeout)
		b, err := c.store.Get(ctx, key)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("temporal: reading blob %s: %w", key, err)
		}
		if sum := sha256.Sum256(b); "sha256-"+hex.EncodeToString(sum[:]) != key {
			return nil, fmt.Errorf("temporal: blob %s does not hold what its key names", key)
		}
		var q commonpb.Payload
		if err := q.Unmarshal(b); err != nil {
			return nil, fmt.Errorf("temporal: blob %s: %w", key, err)
		}
		out[i] = &q
	}
	return out, nil
}

// validKey reports whether key is one the codec makes, so that a store never builds a path or
// a query from anything else.
func validKey(key string) bool {
	h, ok := strings.CutPrefix(key, "sha256-")
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// FileBlobs keeps blobs as files in a directory that every worker and client reaches (a shared
// volume), one file per key, written whole before it is renamed into place.
type FileBlobs struct {
	Dir string
}

// Put implements BlobStore.
func (f FileBlobs) Put(_ context.Context, key string, data []byte) error {
	if !validKey(key) {
		return fmt.Errorf("temporal: invalid blob key %q", key)
	}
	path := filepath.Join(f.Dir, key)
	if _, err := os.Stat(path); err == nil {
		return nil // content-addressed: kept already
	}
	if err := os.MkdirAll(f.Dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.Dir, ".blob-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// Get implements BlobStore.
func (f FileBlobs) Get(_ context.Context, key string) ([]byte, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("temporal: invalid blob key %q: %w", key, os.ErrNotExist)
	}
	return os.ReadFile(filepath.Join(f.Dir, key))
}

// PostgresBlobs keeps blobs in a PostgreSQL table, wield_blobs, created on first use.
type PostgresBlobs struct {
	pool *pgxpool.Pool
}

// OpenPostgresBlobs connects to the database at url (a postgres:// URL or key=value string, as
// pgx reads it) and creates the table if needed.
func OpenPostgresBlobs(ctx context.Context, url string) (*PostgresBlobs, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("temporal: blob store: %w", err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS wield_blobs (key text PRIMARY KEY, data bytea NOT NULL, created timestamptz NOT NULL DEFAULT now())`); err != nil {
		pool.Close()
		return nil, fmt.Errorf("temporal: blob store: %w", err)
	}
	return &PostgresBlobs{pool: pool}, nil
}

// Close closes the store's connections.
func (p *PostgresBlobs) Close() { p.pool.Close() }

// Put implements BlobStore.
func (p *PostgresBlobs) Put(ctx context.Context, key string, data []byte) error {
	if !validKey(key) {
		return fmt.Errorf("temporal: invalid blob key %q", key)
	}
	_, err := p.pool.Exec(ctx, `INSERT INTO wield_blobs (key, data) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, key, data)
	return err
}

// Get implements BlobStore.
func (p *PostgresBlobs) Get(ctx context.Context, key string) ([]byte, error) {
	var b []byte
	err := p.pool.QueryRow(ctx, `SELECT data FROM wield_blobs WHERE key = $1`, key).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("temporal: blob %s: %w", key, os.ErrNotExist)
	}
	return b, err
}
