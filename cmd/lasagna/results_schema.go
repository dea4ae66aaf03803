package main

import (
	"fmt"
	"io"
	"os"

	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/results/schema"
	"github.com/spf13/cobra"
)

// newResultsSchemaCmd is `lasagna results schema [-o FILE]`: it prints the
// JSON Schema (draft 2020-12) of a results bundle, generated from the Go
// types the writer uses, or writes it to FILE.
func newResultsSchemaCmd(stdout io.Writer) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "schema [-o FILE]",
		Short: "Print the JSON Schema of a results bundle",
		Long: `schema prints the JSON Schema (draft 2020-12) of a results bundle, schema
version ` + results.SchemaVersion + `. It is generated from the same Go types and constants the
bundle writer uses, so the two cannot disagree. Readers accept 1.0 <= v < 2.0.
Exit status: 0 written, 1 the file could not be written, 2 usage error.`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" || out == "-" {
				_, err := stdout.Write(schema.JSON())
				return err
			}
			if err := os.WriteFile(out, schema.JSON(), 0o644); err != nil {
				return problems(fmt.Errorf("results schema: %w", err))
			}
			fmt.Fprintf(stdout, "wrote the results bundle schema %s to %s\n", results.SchemaVersion, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the schema to `FILE` instead of standard output")
	return cmd
}
