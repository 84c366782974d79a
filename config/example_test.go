package config_test

import (
	"errors"
	"fmt"

	"github.com/wisp-agent/wisp/config"
)

func ExampleConfig_Set() {
	c := config.Default()
	if err := c.Set("tools.disabled", "shell,ask,shell"); err != nil {
		fmt.Println(err)
	}
	if err := c.Set("inquiry.timeoutSeconds", "300"); err != nil {
		fmt.Println(err)
	}
	disabled, _ := c.Get("tools.disabled")
	fmt.Println(disabled, c.Timeout())

	err := c.Set("tools.ask", "maybe")
	fmt.Println(err, errors.Is(err, config.ErrBadValue))
	// Output:
	// ask,shell 5m0s
	// tools.ask takes true, false, on or off; got "maybe" true
}

func ExampleKeys() {
	for _, k := range config.Keys() {
		fmt.Printf("%s (%s, default %q)\n", k.Name, k.Kind, k.Default)
	}
	// Output:
	// approval.outOfBand (bool, default "true")
	// approval.threshold (enum, default "moderate")
	// commands.env (list, default "")
	// inquiry.elicitation (bool, default "false")
	// inquiry.timeoutSeconds (int, default "0")
	// models.contextLength (int, default "0")
	// models.default (string, default "")
	// models.enabled (list, default "")
	// models.trusted (list, default "")
	// sandbox.mode (enum, default "workspace-write")
	// sandbox.network (bool, default "false")
	// tools.ask (bool, default "false")
	// tools.ask_user (bool, default "false")
	// tools.disabled (list, default "")
	// tools.edit_file (bool, default "false")
	// tools.list_files (bool, default "false")
	// tools.memory (bool, default "false")
	// tools.models (bool, default "false")
	// tools.read_file (bool, default "false")
	// tools.request_approval (bool, default "false")
	// tools.run_command (bool, default "false")
	// tools.scan_secrets (bool, default "false")
	// tools.search (bool, default "false")
}
