package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/kriguard/kriguard/admissionpolicy"
)

func policyCommand() *command {
	return &command{
		name:  "policy",
		use:   "kriguard policy [flags]",
		short: "print the ValidatingAdmissionPolicies that enforce a configuration without the webhook",
		long: `policy prints, as YAML, the ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding of every
guarded kind of the configuration (--config, or the built-in one): the rules CEL can express, with the
configuration's enforcement as validationActions and its requester overrides as match conditions
(docs/policy.md). What CEL cannot do (hash-suffix and Kong hashes, generateName) stays with the webhook.
The policies need Kubernetes 1.34 or later.`,
		example: `  kriguard policy > policies.yaml
  kriguard policy --config kriguard.yaml --exclude-namespace kriguard-system | kubectl apply -f -`,
		flags: func(a *app, fs *pflag.FlagSet) {
			fs.StringVar(&a.configPath, "config", "", "kriguard configuration file, as the webhook's --config (default: the built-in configuration)")
			fs.StringVar(&a.policy.Prefix, "prefix", "kriguard", "prefix of the generated objects' names")
			fs.StringSliceVar(&a.policy.ExcludeNamespaces, "exclude-namespace", nil, "namespace never guarded, besides kube-system (repeatable; typically kriguard's own)")
			fs.StringVar(&a.policy.OptOutLabel, "opt-out-label", "", `namespace label that, set to "true", keeps a namespace unguarded`)
		},
		run: runPolicy,
	}
}

func runPolicy(a *app, _ context.Context, args []string) int {
	const path = "kriguard policy"
	if len(args) > 0 {
		return a.fail(path, usagef("unexpected argument %q", args[0]))
	}
	if err := a.loadConfig(); err != nil {
		return a.fail(path, err)
	}
	objs, err := admissionpolicy.Generate(a.cfg, a.policy)
	if err != nil {
		return a.fail(path, fmt.Errorf("generating policies: %w", err))
	}
	data, err := objs.YAML()
	if err != nil {
		return a.fail(path, err)
	}
	if _, err := a.out.Write(data); err != nil {
		return a.fail(path, fmt.Errorf("writing output: %w", err))
	}
	return ExitOK
}
