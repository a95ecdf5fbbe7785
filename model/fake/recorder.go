package fake

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"os"
	"sync"

	"github.com/castor-dev/castor/model"
	"google.golang.org/genai"
)

// Recorder is a model.Model that passes calls to another Model and appends
// each answer to a responses file that Model (or Gemini CLI's
// --fake-responses) can replay later. Like Gemini CLI's
// RecordingContentGenerator it keeps only what replay needs: candidates,
// usageMetadata and modelVersion.
//
// Every entry is written with a single Write of a whole line, so a crash
// never leaves half a line behind. Recording failures do not fail the
// calls; the first one is reported by Err and Close.
type Recorder struct {
	m model.Model

	mu     sync.Mutex
	w      io.Writer
	closer io.Closer
	err    error
}

var _ model.Model = (*Recorder)(nil)

// NewRecorder records m's answers to w.
func NewRecorder(m model.Model, w io.Writer) *Recorder {
	return &Recorder{m: m, w: w}
}

// Record records m's answers by appending to the file at path, creating
// it if needed. Close the Recorder to close the file.
func Record(m model.Model, path string) (*Recorder, error) {
	// O_APPEND makes each single-Write line land whole even if several
	// processes record into one file.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	r := NewRecorder(m, f)
	r.closer = f
	return r, nil
}

// Err returns the first error met while writing, if any.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close closes the file opened by Record and returns the first write or
// close error.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closer != nil {
		if err := r.closer.Close(); err != nil && r.err == nil {
			r.err = err
		}
		r.closer = nil
	}
	return r.err
}

func (r *Recorder) write(method string, response any) {
	b, err := json.Marshal(struct {
		Method   string `json:"method"`
		Response any    `json:"response"`
	}{method, response})
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		_, err = r.w.Write(append(b, '\n'))
	}
	if err != nil && r.err == nil {
		r.err = err
	}
}

// trim keeps the fields replay needs, dropping the SDK's HTTP headers and
// the per-call ids.
func trim(resp *genai.GenerateContentResponse) *genai.GenerateContentResponse {
	if resp == nil {
		return &genai.GenerateContentResponse{}
	}
	return &genai.GenerateContentResponse{
		Candidates:    resp.Candidates,
		UsageMetadata: resp.UsageMetadata,
		ModelVersion:  resp.ModelVersion,
	}
}

// GenerateContent implements model.Model.
func (r *Recorder) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	resp, err := r.m.GenerateContent(ctx, req)
	if err != nil {
		return nil, err
	}
	r.write(MethodGenerateContent, trim(resp))
	return resp, nil
}

// GenerateContentStream implements model.Model. The stream is written
// once it ends without error, including when the consumer stops early, so
// the file holds what the caller actually saw.
func (r *Recorder) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		chunks := []*genai.GenerateContentResponse{}
		for resp, err := range r.m.GenerateContentStream(ctx, req) {
			if err != nil {
				yield(nil, err)
				return
			}
			chunks = append(chunks, trim(resp))
			if !yield(resp, nil) {
				break
			}
		}
		r.write(MethodGenerateContentStream, chunks)
	}
}

// CountTokens implements model.Model.
func (r *Recorder) CountTokens(ctx context.Context, req *model.Request) (int32, error) {
	n, err := r.m.CountTokens(ctx, req)
	if err != nil {
		return 0, err
	}
	r.write(MethodCountTokens, struct {
		TotalTokens int32 `json:"totalTokens"`
	}{n})
	return n, nil
}
