package blobstore

import (
	"errors"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	// The cloud schemes parse only in binaries that link their drivers.
	cloud := cloudScheme("gs") && cloudScheme("s3")
	const fileQuery = "create_dir=1&dir_file_mode=0700&metadata=skip&no_tmp_dir=1"
	for _, tt := range []struct {
		in        string
		want      string // the URL handed to openBucket
		err       string // a substring of the *URLError
		needCloud bool
	}{
		{in: "file:///var/lib/castor", want: "file:///var/lib/castor?" + fileQuery},
		{in: "file://localhost/var/lib/castor", want: "file://localhost/var/lib/castor?" + fileQuery},
		{in: "file://./rel/dir", want: "file://./rel/dir?" + fileQuery},
		{in: "FILE:///x", want: "file:///x?" + fileQuery},
		{in: "file:///with%20space", want: "file:///with%20space?" + fileQuery},
		// The URL's own options win over the defaults.
		{in: "file:///x?dir_file_mode=0750&metadata=", want: "file:///x?create_dir=1&dir_file_mode=0750&metadata=&no_tmp_dir=1"},
		{in: "mem://", want: "mem:"},
		{in: "mem://anything", want: "mem://anything"},
		{in: "gs://bucket", want: "gs://bucket", needCloud: true},
		{in: "gs://bucket/", want: "gs://bucket", needCloud: true},
		{in: "gs://bucket/team/a2a/", want: "gs://bucket?prefix=team%2Fa2a%2F", needCloud: true},
		{in: "gs://bucket?prefix=p/", want: "gs://bucket?prefix=p%2F", needCloud: true},
		{in: "s3://bucket/p?region=eu-west-1", want: "s3://bucket?prefix=p%2F&region=eu-west-1", needCloud: true},

		{in: "", err: "not a URL"},
		{in: "/var/lib/castor", err: "not a URL"},
		{in: "tasks", err: "not a URL"},
		{in: "file:relative", err: "not a URL"},
		{in: "://x", err: "not a URL: missing protocol scheme"},
		{in: "file://var/lib", err: "absolute path: file:///var/lib"},
		{in: "file://", err: "no directory"},
		{in: "file:///", err: "no directory"},
		{in: "ftp://host/x", err: `unknown scheme "ftp"; use file, mem, gs or s3`},
		{in: "azblob://c", err: `unknown scheme "azblob"`},
		{in: "gs://", err: "no bucket; use gs://bucket[/prefix]"},
		{in: "s3:///p", err: "no bucket; use s3://bucket[/prefix]"},
		{in: "gs://b/p?prefix=q/", err: "not both", needCloud: true},
	} {
		t.Run(tt.in, func(t *testing.T) {
			u, err := parseURL(tt.in)
			if tt.needCloud && !cloud {
				var ue *URLError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), "built without") || !strings.Contains(err.Error(), BuildHint) {
					t.Errorf("parseURL(%q) = %v, want the cloudstore build hint", tt.in, err)
				}
				return
			}
			if tt.err != "" {
				var ue *URLError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("parseURL(%q) = %v, %v; want a URLError with %q", tt.in, u, err, tt.err)
				}
				if err != nil && strings.Contains(err.Error(), "\n") {
					t.Errorf("error spans lines: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseURL(%q): %v", tt.in, err)
			}
			if got := u.String(); got != tt.want {
				t.Errorf("parseURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestGCSBucketURL(t *testing.T) {
	for _, tt := range []struct{ env, want string }{
		{"", ""},
		{"   ", ""},
		{"my-bucket", "gs://my-bucket"},
		{" my-bucket\n", "gs://my-bucket"},
		{"gs://my-bucket", "gs://my-bucket"},
		{"gs://my-bucket/", "gs://my-bucket"},
		{"my.dotted.bucket", "gs://my.dotted.bucket"},
	} {
		if got := GCSBucketURL(tt.env); got != tt.want {
			t.Errorf("GCSBucketURL(%q) = %q, want %q", tt.env, got, tt.want)
		}
	}
}
