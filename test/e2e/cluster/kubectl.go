package main

import (
	"os"
	"path/filepath"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/component-base/version"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

// isKubectl tells whether this process was called as kubectl: through a symlink named
// kubectl, or as `cluster kubectl ...` (then the first argument is dropped).
func isKubectl() bool {
	if filepath.Base(os.Args[0]) == "kubectl" {
		return true
	}
	if len(os.Args) > 1 && os.Args[1] == "kubectl" {
		os.Args = append(os.Args[:1], os.Args[2:]...)
		return true
	}
	return false
}

// runKubectl is cmd/kubectl/kubectl.go of k8s.io/kubernetes.
func runKubectl() int {
	logs.GlogSetter(cmd.GetLogVerbosity(os.Args)) // nolint:errcheck
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
	return 0
}

func versionString() string { return version.Get().GitVersion }
