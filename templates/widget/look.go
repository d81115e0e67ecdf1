//go:build !tm_browser

package widget

// The colours of a standalone chart (ChartOptions.Standalone), drawn for a
// static picture by the server or the Worker. The browser's modules, built
// with the tag tm_browser, draw no picture and leave them out
// (look_browser.go).

// chartLook returns the presentation attributes of a shape of class in a
// standalone source chart: the colours app.css gives it in the light
// scheme. A switch, as the others, so that loading the package allocates
// nothing.
func chartLook(class string) []string {
	switch class {
	case "tm-axis":
		return []string{"stroke", "#4a5560"}
	case "tm-grid":
		return []string{"stroke", "#c9d1d9", "stroke-dasharray", "2 3"}
	case "tm-tick":
		return []string{"fill", "#4a5560"}
	case "tm-markline":
		return []string{"stroke", "#b23c0a", "stroke-width", "2", "stroke-dasharray", "6 3"}
	case "tm-markline tm-lsn":
		return []string{"stroke", "#6b2fa0", "stroke-width", "2", "stroke-dasharray", "2 2"}
	case "tm-marklabel":
		return []string{"fill", "#b23c0a", "font-weight", "700"}
	case "tm-marklabel tm-lsn":
		return []string{"fill", "#6b2fa0", "font-weight", "700"}
	case "tm-nowline":
		return []string{"stroke", "#1b1f23", "stroke-width", "1"}
	case "tm-bar tm-open":
		return []string{"fill", "#f4b942", "fill-opacity", "0.55", "stroke", "#1b1f23", "stroke-dasharray", "4 2"}
	case "tm-bar tm-committed":
		return []string{"fill", "#0b4f6c", "fill-opacity", "0.55", "stroke", "#1b1f23"}
	case "tm-bar tm-rolled-back":
		return []string{"fill", "none", "stroke", "#1b1f23", "stroke-dasharray", "2 2"}
	case "tm-stamp":
		return []string{"fill", "#1b1f23"}
	}
	return nil
}

// laneLook returns a lane's colours in a standalone picture, which has no
// stylesheet: app.css's light scheme, as presentation attributes. A
// switch, as streamLook, so that loading the package allocates nothing.
func laneLook(class string) []string {
	switch class {
	case "tm-lane-label":
		return []string{"font-size", "13", "font-weight", "700"}
	case "tm-lane-earlier", "tm-cell-offset":
		return []string{"fill", "#4a5560"}
	case "tm-cell-box":
		return []string{"fill", "#c9d8df", "stroke", "#1b1f23"}
	case "tm-cell-box tm-cell-box-off":
		return []string{"fill", "none", "stroke", "#4a5560", "stroke-dasharray", "3 3"}
	case "tm-cell-key":
		return []string{"font-size", "13", "font-weight", "700"}
	case "tm-cell-key tm-cell-key-off":
		return []string{"font-size", "13", "font-weight", "700", "fill", "#4a5560"}
	case "tm-cell-next":
		return []string{"fill", "none", "stroke", "#c9d1d9", "stroke-dasharray", "2 4"}
	case "tm-log-start":
		return []string{"stroke", "#d9480f", "stroke-width", "2"}
	case "tm-log-end":
		return []string{"stroke", "#d9480f", "stroke-width", "2", "stroke-dasharray", "5 3"}
	case "tm-log-label":
		return []string{"fill", "#d9480f", "font-weight", "700"}
	}
	return nil
}

// streamLook returns the presentation attributes of a shape of class in a
// standalone stream chart: the colours app.css gives it in the light
// scheme. A switch, not a map, so that loading the package allocates
// nothing (the Worker starts it on every cold request).
func streamLook(class string) []string {
	switch class {
	case "tm-axis", "tm-tick":
		return chartLook(class) // the source chart's axis
	case "tm-lane":
		return []string{"fill", "#f6f8fa", "stroke", "#c9d1d9"}
	case "tm-lane tm-idle":
		return []string{"fill", "url(#tm-hatch)", "stroke", "#c9d1d9"}
	case "tm-dot":
		return []string{"fill", "#0b4f6c"}
	case "tm-dot tm-fresh":
		return []string{"fill", "#0b4f6c", "stroke", "#1b1f23", "stroke-width", "2"}
	case "tm-dot tm-wait":
		return []string{"fill", "#ffffff", "stroke", "#0b4f6c", "stroke-width", "1.5"}
	case "tm-late":
		return []string{"stroke", "#b23c0a", "stroke-width", "2", "fill", "none"}
	case "tm-pwm":
		return []string{"stroke", "#1b1f23", "stroke-width", "2"}
	case "tm-wmline":
		return []string{"stroke", "#b23c0a", "stroke-width", "2", "stroke-dasharray", "6 3"}
	case "tm-wmlabel":
		return []string{"fill", "#b23c0a", "font-weight", "700"}
	case "tm-nowline":
		return []string{"stroke", "#4a5560", "stroke-width", "1"}
	case "tm-win":
		return []string{"fill", "#ffffff", "stroke", "#1b1f23"}
	case "tm-win tm-fired":
		return []string{"fill", "#e7f0f4", "stroke", "#1b1f23", "stroke-width", "2"}
	case "tm-win tm-gone":
		return []string{"fill", "#f6f8fa", "stroke", "#4a5560", "stroke-dasharray", "3 2"}
	case "tm-winfill":
		return []string{"fill", "#0b4f6c", "fill-opacity", "0.35"}
	case "tm-token":
		return []string{"fill", "#f4b942", "stroke", "#1b1f23", "stroke-width", "1.5"}
	}
	return nil
}
