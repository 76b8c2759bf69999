package admissionpolicy

import (
	"fmt"
	"os"

	"github.com/kriguard/kriguard/rules"
)

// WriteFor generates the policies of the configuration file at configPath ("" for the built-in
// configuration) and writes them to path ("-" for standard output).
func WriteFor(configPath string, o Options, path string) error {
	cfg, err := rules.LoadConfig(configPath)
	if err != nil {
		return err
	}
	objs, err := Generate(cfg, o)
	if err != nil {
		return fmt.Errorf("generating policies: %w", err)
	}
	data, err := objs.YAML()
	if err != nil {
		return err
	}
	if path == "-" {
		_, err = os.Stdout.Write(data)
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
