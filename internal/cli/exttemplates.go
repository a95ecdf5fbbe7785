package cli

import (
	"embed"
	"io/fs"
	"path"
)

// templateFiles holds the boilerplates too large to write inline in
// extTemplates: exttemplates/<template>/<files>, with %NAME% as there.
//
//go:embed exttemplates
var templateFiles embed.FS

// addTemplateFiles adds templateFiles' boilerplates to m.
func addTemplateFiles(m map[string]map[string]string) {
	dirs, _ := fs.ReadDir(templateFiles, "exttemplates")
	for _, d := range dirs {
		files := map[string]string{}
		root := path.Join("exttemplates", d.Name())
		fs.WalkDir(templateFiles, root, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				data, _ := templateFiles.ReadFile(p)
				files[p[len(root)+1:]] = string(data)
			}
			return err
		})
		m[d.Name()] = files
	}
}
