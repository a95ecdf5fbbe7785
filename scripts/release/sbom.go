package main

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"strings"
)

// cdxBOM is the part of CycloneDX 1.5's JSON a Go binary's SBOM needs.
type cdxBOM struct {
	BOMFormat    string          `json:"bomFormat"`
	SpecVersion  string          `json:"specVersion"`
	SerialNumber string          `json:"serialNumber"`
	Version      int             `json:"version"`
	Metadata     cdxMetadata     `json:"metadata"`
	Components   []cdxComponent  `json:"components"`
	Dependencies []cdxDependency `json:"dependencies"`
}

type cdxMetadata struct {
	Timestamp string       `json:"timestamp"`
	Tools     cdxTools     `json:"tools"`
	Component cdxComponent `json:"component"`
}

type cdxTools struct {
	Components []cdxComponent `json:"components"`
}

type cdxComponent struct {
	Type       string        `json:"type"`
	BOMRef     string        `json:"bom-ref,omitempty"`
	Name       string        `json:"name"`
	Version    string        `json:"version,omitempty"`
	PURL       string        `json:"purl,omitempty"`
	Licenses   []cdxLicense  `json:"licenses,omitempty"`
	Hashes     []cdxHash     `json:"hashes,omitempty"`
	Properties []cdxProperty `json:"properties,omitempty"`
}

type cdxLicense struct {
	License struct {
		ID string `json:"id"`
	} `json:"license"`
}

type cdxHash struct {
	Alg     string `json:"alg"`
	Content string `json:"content"`
}

type cdxProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type cdxDependency struct {
	Ref       string   `json:"ref"`
	DependsOn []string `json:"dependsOn"`
}

// writeSBOM writes a CycloneDX SBOM of the modules the binary links, read
// from the build information Go embeds in it (what `go version -m`
// prints), so the SBOM lists exactly what shipped for this platform.
func writeSBOM(file, bin string, c *config, goos, goarch string) error {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("SBOM of %s: %w", bin, err)
	}
	bom := sbom(info, c.version, c.date, goos, goarch)
	return writeJSON(file, bom)
}

func purl(path, version string) string {
	return "pkg:golang/" + path + "@" + version
}

func sbom(info *debug.BuildInfo, ver, date, goos, goarch string) cdxBOM {
	mainRef := purl(info.Main.Path, "v"+ver) + "?goos=" + goos + "&goarch=" + goarch
	main := cdxComponent{
		Type: "application", BOMRef: mainRef, Name: info.Main.Path, Version: "v" + ver, PURL: mainRef,
		Licenses: []cdxLicense{{}},
	}
	main.Licenses[0].License.ID = "Apache-2.0"
	for _, s := range info.Settings {
		if s.Key == "GOOS" || s.Key == "GOARCH" || s.Key == "CGO_ENABLED" || s.Key == "-ldflags" || s.Key == "-tags" || s.Key == "-trimpath" {
			main.Properties = append(main.Properties, cdxProperty{Name: "cdx:gomod:build:env:" + s.Key, Value: s.Value})
		}
	}
	goVer := strings.TrimPrefix(info.GoVersion, "go")
	std := cdxComponent{Type: "library", BOMRef: purl("stdlib", "v"+goVer), Name: "stdlib", Version: "v" + goVer, PURL: purl("stdlib", "v"+goVer)}
	comps := []cdxComponent{std}
	deps := []string{std.BOMRef}
	for _, d := range info.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		comp := cdxComponent{Type: "library", BOMRef: purl(m.Path, m.Version), Name: m.Path, Version: m.Version, PURL: purl(m.Path, m.Version)}
		// h1: is the base64 SHA-256 of the module's files (go.sum's hash).
		if raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(m.Sum, "h1:")); err == nil && strings.HasPrefix(m.Sum, "h1:") && len(raw) == sha256.Size {
			comp.Hashes = []cdxHash{{Alg: "SHA-256", Content: hex.EncodeToString(raw)}}
		}
		comps = append(comps, comp)
		deps = append(deps, comp.BOMRef)
	}
	// The serial number is derived from the contents, so the same build
	// gives the same file.
	seed := sha256.Sum256([]byte(mainRef + strings.Join(deps, ",")))
	u := seed[:16]
	u[6] = u[6]&0x0f | 0x50 // a name-based UUID's version and variant bits
	u[8] = u[8]&0x3f | 0x80
	serial := fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
	return cdxBOM{
		BOMFormat: "CycloneDX", SpecVersion: "1.5", SerialNumber: serial, Version: 1,
		Metadata: cdxMetadata{
			Timestamp: date,
			Tools:     cdxTools{Components: []cdxComponent{{Type: "application", Name: "castor scripts/release"}}},
			Component: main,
		},
		Components:   comps,
		Dependencies: []cdxDependency{{Ref: mainRef, DependsOn: deps}},
	}
}
