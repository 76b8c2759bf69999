package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kriguard/kriguard/rules"
)

// formatGitHub is GitHub Actions workflow commands, which the runner turns into annotations on
// the files of a pull request (docs/reports.md).
const formatGitHub = "github"

// githubWriter prints one workflow command per finding: `::error file=F,line=L,col=C,title=T::M`,
// ::warning for warnings and for the problems of objects their enforcement admits, ::notice for
// notes.
type githubWriter struct{ w sink }

func (g *githubWriter) write(r Result) error {
	for _, f := range r.Findings {
		if _, ok := rules.Describe(f.Rule); !ok {
			continue
		}
		cmd := "notice"
		switch shownLevel(&r, &f) {
		case rules.LevelError:
			cmd = "error"
		case rules.LevelWarning:
			cmd = "warning"
		}
		props := []string{"file=" + escapeProperty(r.Source)}
		line, col := f.Position.Line, f.Position.Column
		if line == 0 {
			line = r.Line
		}
		if line > 0 {
			props = append(props, "line="+strconv.Itoa(line))
			if col > 0 {
				props = append(props, "col="+strconv.Itoa(col))
			}
		}
		props = append(props, "title="+escapeProperty("kriguard "+string(f.Rule)))
		if _, err := fmt.Fprintf(g.w, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(findingText(&r, &f))); err != nil {
			return err
		}
	}
	return nil
}

func (g *githubWriter) close() error { return nil }

// escapeData escapes the message of a workflow command as the Actions runner reads it back:
// '%', CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a property value of a workflow command: what escapeData escapes, and
// ':' and ',', which end a value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
