package course

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// mdBlock is a fenced block of Markdown in docs/lessons.md, opened by
// "```md" (or more backticks) and an optional " file=NAME".
type mdBlock struct{ name, body string }

// mdBlocks returns the fenced blocks of text whose language is md. A block
// ends at a line of exactly the backticks that opened it.
func mdBlocks(text string) []mdBlock {
	var out []mdBlock
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		ticks := len(lines[i]) - len(strings.TrimLeft(lines[i], "`"))
		info := lines[i][ticks:]
		if ticks < 3 || !strings.HasPrefix(info, "md") || len(info) > 2 && info[2] != ' ' {
			continue
		}
		name, _ := strings.CutPrefix(strings.TrimSpace(info[2:]), "file=")
		var body []string
		for i++; i < len(lines) && lines[i] != strings.Repeat("`", ticks); i++ {
			body = append(body, lines[i])
		}
		out = append(out, mdBlock{name, strings.Join(body, "\n")})
	}
	return out
}

// TestDocsExamplesLoad loads the examples of docs/lessons.md as one lesson:
// the blocks that name a file are that file, every other block is a
// chapter of its own. The lesson must load and pass Verify, so the page a
// teacher copies from stays true.
func TestDocsExamplesLoad(t *testing.T) {
	b, err := os.ReadFile("../../docs/lessons.md")
	require.NoError(t, err)
	fsys := fstest.MapFS{}
	snippets := 0
	for _, m := range mdBlocks(string(b)) {
		name, body := m.name, m.body
		if name == "" {
			snippets++
			id := fmt.Sprintf("example-%d", snippets)
			name = fmt.Sprintf("%02d-%s.md", 50+snippets, id)
			body = "# Example " + id + "\n\n## Example {#" + id + "}\n\n" + body
		}
		require.NotContains(t, fsys, "docs/"+name, "two examples are %s", name)
		fsys["docs/"+name] = &fstest.MapFile{Data: []byte(body + "\n")}
	}
	require.GreaterOrEqual(t, snippets, 7, "the examples of docs/lessons.md were not found")
	for _, want := range []string{"lesson.md", "glossary.md"} {
		require.Contains(t, fsys, "docs/"+want)
	}
	ls, err := Load(fsys, "docs/lessons.md", []string{"docs"})
	require.NoError(t, err, "an example in docs/lessons.md does not load")
	require.NoError(t, Verify(ls[0]), "an example in docs/lessons.md does not pass Verify")
	// Every directive has an example.
	kinds := map[string]bool{}
	for _, c := range ls[0].Chapters {
		for _, s := range c.Sections {
			for _, b := range s.Blocks {
				kinds[fmt.Sprintf("%T", b)] = true
			}
		}
	}
	for _, k := range []string{"course.Embeds", "course.Predict", "course.Compare", "course.Checks", "course.Plot", "course.Note", "course.Table", "course.Code", "course.List", "course.Para"} {
		require.True(t, kinds[k], "docs/lessons.md has no example of %s", k)
	}
	require.NotEmpty(t, ls[0].Glossary)
}
