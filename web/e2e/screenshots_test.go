//go:build !js

package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestDocScreenshots writes the README's pictures of the widget to
// docs/screenshots: the stage at 1280 px, presenter mode at 1024×768 and
// the stage at 360 px, the log and stream worlds' stages at 1280 px, and
// the stream world in presenter mode at 1024×768 zoomed to 150%.
// It runs only with TIDEMARK_SCREENSHOTS=1 (make screenshots), since it
// rewrites committed files:
//
//	make screenshots
func TestDocScreenshots(t *testing.T) {
	if os.Getenv("TIDEMARK_SCREENSHOTS") != "1" {
		t.Skip("the README's screenshots are taken with TIDEMARK_SCREENSHOTS=1 (make screenshots)")
	}
	dir := filepath.Join("..", "..", "docs", "screenshots")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, shot := range []struct {
		file, path string
		w, h       int64
		top        string // the element scrolled to the top of the picture
	}{
		{"stage-1280.png", "/scenarios/hwm/visibility-gap?step=15", 1280, 960, ".tm-widget"},
		{"presenter-1024x768.png", "/scenarios/hwm/visibility-gap?step=16&mark=lsn&present", 1024, 768, ""},
		{"stage-360.png", "/scenarios/hwm/visibility-gap?step=14", 360, 1400, ".tm-live"},
		{"stage-log-1280.png", "/scenarios/dist/partition-change?step=21", 1280, 960, ".tm-widget"},
		{"stage-stream-1280.png", "/scenarios/stream/late-data?step=60", 1280, 720, ".tm-live"},
		{"presenter-stream-1024x768-150.png", "/scenarios/stream/late-data?step=120&present", 683, 512, ""},
	} {
		t.Run(shot.file, func(t *testing.T) {
			ctx, _ := startPlayground(t, shot.path)
			scale := 1.0
			if shot.w == 683 {
				scale = 1.5 // a 1024×768 window at 150% zoom
			}
			require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(shot.w, shot.h, chromedp.EmulateScale(scale))))
			call(t, ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{
				{Name: "prefers-reduced-motion", Value: "reduce"}, {Name: "prefers-color-scheme", Value: "light"}}})
			if shot.top != "" {
				eval[bool](t, ctx, `(document.documentElement.style.scrollBehavior = "auto", window.scrollTo(0, document.querySelector('`+shot.top+`').getBoundingClientRect().top + window.scrollY - 8), true)`)
			}
			time.Sleep(300 * time.Millisecond) // fonts and the last layout
			png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, shot.file), png, 0o644))
		})
	}
}
