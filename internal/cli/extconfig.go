package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/castor-dev/castor/config"
)

// newExtensionsConfigCommand is `castor extensions config [name]
// [setting] [--scope user|workspace]`: it asks for the values of the
// settings an extension declares ("settings" in gemini-extension.json) and
// stores them where sessions read them, the extension's .env (user scope)
// or the workspace's .env, as `gemini extensions config` does. Values are
// read from stdin, one line each, so a script can pipe them in.
func newExtensionsConfigCommand(stdio IO) *cobra.Command {
	var scope string
	c := &cobra.Command{
		Use:   "config [name] [setting]",
		Short: "Configure extension settings.",
		Args:  cobra.MaximumNArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			return extConfig(stdio, args, scope)
		},
	}
	c.Flags().StringVar(&scope, "scope", "user", "The scope to set the setting in (user or workspace).")
	return c
}

func extConfig(stdio IO, args []string, scope string) error {
	p, err := currentExtPlace()
	if err != nil {
		return err
	}
	if scope != "user" && scope != "workspace" {
		return &usageError{msg: fmt.Sprintf("Invalid scope: %s. Please use one of user, workspace.", scope)}
	}
	exts := loadExtensionsWarning(p, stdio)
	in := newSettingPrompter(stdio)
	if len(args) == 0 {
		if len(exts) == 0 {
			fmt.Fprintln(stdio.Stdout, "No extensions installed.")
		}
		for _, e := range exts {
			if len(e.Settings) > 0 {
				if err := migrateSecrets(stdio, p, e); err != nil {
					return err
				}
				fmt.Fprintf(stdio.Stdout, "\nConfiguring settings for %q...\n", e.Name)
				if err := configureSettings(stdio, in, p, e, e.Settings, scope); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var ext *config.Extension
	for _, e := range exts {
		if e.Name == args[0] {
			ext = e
		}
	}
	if ext == nil {
		return fmt.Errorf("Extension %q is not installed.", args[0])
	}
	if err := migrateSecrets(stdio, p, ext); err != nil {
		return err
	}
	settings := ext.Settings
	if len(args) == 2 {
		settings = nil
		for _, s := range ext.Settings {
			if s.Name == args[1] || s.EnvVar == args[1] {
				settings = append(settings, s)
				break
			}
		}
		if settings == nil {
			return fmt.Errorf("Setting %q not found in extension %q (its settings: %s).", args[1], ext.Name, settingNames(ext.Settings))
		}
		// Naming the setting means to set it: no overwrite question.
		return configureSetting(stdio, in, p, ext, settings[0], scope, true)
	}
	if len(settings) == 0 {
		fmt.Fprintf(stdio.Stdout, "Extension %q has no settings to configure.\n", ext.Name)
		return nil
	}
	fmt.Fprintf(stdio.Stdout, "Configuring settings for %q...\n", ext.Name)
	return configureSettings(stdio, in, p, ext, settings, scope)
}

func settingNames(ss []config.ExtensionSetting) string {
	if len(ss) == 0 {
		return "none"
	}
	var names []string
	for _, s := range ss {
		names = append(names, fmt.Sprintf("%q (%s)", s.Name, s.EnvVar))
	}
	return strings.Join(names, ", ")
}

func configureSettings(stdio IO, in *settingPrompter, p extPlace, e *config.Extension, ss []config.ExtensionSetting, scope string) error {
	for _, s := range ss {
		if err := configureSetting(stdio, in, p, e, s, scope, false); err != nil {
			return err
		}
	}
	return nil
}

// settingsFile is the .env holding e's settings in scope.
func settingsFile(p extPlace, e *config.Extension, scope string) string {
	if scope == "workspace" {
		return filepath.Join(p.wd, config.ExtensionSettingsFileName)
	}
	return filepath.Join(e.InstallDir, config.ExtensionSettingsFileName)
}

// secretScope is the workspace key of scope in the secrets file ("" for
// the user's own values).
func secretScope(p extPlace, scope string) string {
	if scope == "workspace" {
		return p.wd
	}
	return ""
}

func (p extPlace) secrets() config.ExtensionSecrets {
	return config.ExtensionSecrets{Path: config.ExtensionSecretsPath(p.home.Dir)}
}

// configureSetting asks for one setting's value and stores it; a value
// already stored is kept unless the user confirms, or force is set. End of
// input leaves the setting as it was. A sensitive value goes to Castor's
// secrets file (0600, in ~/.gemini), never to a .env: Gemini CLI keeps it
// in the keychain.
func configureSetting(stdio IO, in *settingPrompter, p extPlace, e *config.Extension, s config.ExtensionSetting, scope string, force bool) error {
	file := settingsFile(p, e, scope)
	current := map[string]string{}
	if data, err := os.ReadFile(file); err == nil {
		for _, kv := range config.ParseDotEnv(data) {
			current[kv[0]] = kv[1]
		}
	}
	if s.Sensitive {
		stored, err := p.secrets().Get(e.Name, secretScope(p, scope))
		if err != nil {
			return err
		}
		for k, v := range stored {
			current[k] = v
		}
	}
	if _, set := current[s.EnvVar]; set && !force {
		answer, ok := in.ask(fmt.Sprintf("Setting %q (%s) is already set. Overwrite? [y/N] ", s.Name, s.EnvVar), false)
		if !ok || !strings.EqualFold(strings.TrimSpace(answer), "y") && !strings.EqualFold(strings.TrimSpace(answer), "yes") {
			return nil
		}
	}
	label := s.Name
	if s.Description != "" {
		label += "\n" + s.Description
	}
	value, ok := in.ask(label+"\n> ", s.Sensitive)
	if !ok {
		fmt.Fprintf(stdio.Stderr, "No value given for %q (%s); it is left unset. Set it later with: castor extensions config %s %q\n", s.Name, s.EnvVar, e.Name, s.EnvVar)
		return nil
	}
	if s.Sensitive {
		if err := storeSecret(p, e, s, scope, value); err != nil {
			return err
		}
	} else if err := config.SetDotEnvValue(file, s.EnvVar, value); err != nil {
		return err
	}
	fmt.Fprintf(stdio.Stdout, "Setting %q updated.\n", s.Name)
	return nil
}

// storeSecret puts a sensitive value in the secrets file, then removes any
// plain copy from scope's .env (the secret is stored first, so a failure
// in between loses nothing).
func storeSecret(p extPlace, e *config.Extension, s config.ExtensionSetting, scope, value string) error {
	if err := p.secrets().Set(e.Name, secretScope(p, scope), s.EnvVar, value); err != nil {
		return err
	}
	if scope == "workspace" {
		// The project's .env is the project's (its app may read the same
		// variable): it is left alone, and the value stored wins over it.
		return nil
	}
	_, err := config.RemoveDotEnvValue(settingsFile(p, e, scope), s.EnvVar)
	return err
}

// migrateSecrets moves the plain values of e's sensitive settings, which
// earlier Castor builds wrote to the extension's .env, to the secrets
// file, saying so on stderr; it runs when the user next configures e. A
// value in the workspace's .env stays there (the project's file, which
// earlier builds also wrote): the user is told, once, at this command.
func migrateSecrets(stdio IO, p extPlace, e *config.Extension) error {
	for _, scope := range []string{"user", "workspace"} {
		file := settingsFile(p, e, scope)
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		values := map[string]string{}
		for _, kv := range config.ParseDotEnv(data) {
			values[kv[0]] = kv[1]
		}
		for _, s := range e.Settings {
			v, ok := values[s.EnvVar]
			if !s.Sensitive || !ok {
				continue
			}
			if scope == "workspace" {
				fmt.Fprintf(stdio.Stderr, "Note: %s sets %s, the sensitive setting %q of %q, in plain text. Castor no longer writes it there and leaves the file alone; if only the extension uses it, store it with \"castor extensions config --scope workspace %s %s\" and remove the line.\n",
					file, s.EnvVar, s.Name, e.Name, e.Name, s.EnvVar)
				continue
			}
			if err := storeSecret(p, e, s, scope, v); err != nil {
				return err
			}
			fmt.Fprintf(stdio.Stderr, "Moved the sensitive setting %q (%s) of %q from %s to %s, readable by you only.\n",
				s.Name, s.EnvVar, e.Name, file, config.ExtensionSecretsPath(p.home.Dir))
		}
	}
	return nil
}

// settingPrompter reads answers from stdin, one line each; a sensitive
// answer typed at a terminal is not echoed.
type settingPrompter struct {
	stdio IO
	r     *bufio.Reader
}

func newSettingPrompter(stdio IO) *settingPrompter {
	in := stdio.Stdin
	if in == nil {
		in = strings.NewReader("")
	}
	return &settingPrompter{stdio: stdio, r: bufio.NewReader(in)}
}

// ask prints the question on stderr and returns the answer line, false at
// end of input.
func (p *settingPrompter) ask(question string, sensitive bool) (string, bool) {
	fmt.Fprint(p.stdio.Stderr, question)
	if f, ok := p.stdio.Stdin.(*os.File); ok && sensitive && p.stdio.StdinIsTerminal && term.IsTerminal(int(f.Fd())) {
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(p.stdio.Stderr)
		return string(b), err == nil
	}
	line, err := p.r.ReadString('\n')
	if err != nil && (!errors.Is(err, io.EOF) || line == "") {
		return "", false
	}
	return strings.TrimRight(line, "\r\n"), true
}

// promptInstallSettings asks for the settings an extension just installed
// declares, as Gemini CLI's install does unless --skip-settings.
func promptInstallSettings(stdio IO, in *settingPrompter, name string) error {
	p, err := currentExtPlace()
	if err != nil {
		return err
	}
	exts, _ := p.load()
	for _, e := range exts {
		if e.Name == name && len(e.Settings) > 0 {
			fmt.Fprintf(stdio.Stdout, "Configuring settings for %q...\n", e.Name)
			return configureSettings(stdio, in, p, e, e.Settings, "user")
		}
	}
	return nil
}
