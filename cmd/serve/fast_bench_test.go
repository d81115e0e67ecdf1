//go:build !js

package main

import (
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// BenchmarkFastStatic measures the adapter and the site's handler for a
// static file and a kept page, as cmd/serve answers them, without the
// network: fasthttp's request and response are reused as its server reuses
// them on a kept-alive connection.
//
//	go test -run '^$' -bench BenchmarkFast -benchmem ./cmd/serve/
func BenchmarkFast(b *testing.B) {
	h, err := siteHandler()
	require.NoError(b, err)
	serve := adapt(h, slog.New(slog.NewTextHandler(io.Discard, nil)))
	remote := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}

	var ctx fasthttp.RequestCtx
	request := func(path string) *fasthttp.Request {
		var req fasthttp.Request
		req.SetRequestURI(path)
		req.Header.SetHost("tidemark.test")
		req.Header.Set("User-Agent", "ApacheBench/2.3")
		req.Header.Set("Accept", "*/*")
		return &req
	}
	// once answers req as the server does on a kept-alive connection: the
	// response reset, the request read into the same context.
	once := func(req *fasthttp.Request) {
		ctx.Response.Reset()
		ctx.Init(req, remote, nil)
		serve(&ctx)
	}
	once(request("/"))
	css := stylesheet.Find(ctx.Response.Body())
	require.NotEmpty(b, css)
	for name, path := range map[string]string{"static": string(css), "page": "/scenarios/hwm/visibility-gap"} {
		b.Run(name, func(b *testing.B) {
			req := request(path)
			once(req) // rendered and kept
			require.Equal(b, 200, ctx.Response.StatusCode(), path)
			b.ReportAllocs()
			for b.Loop() {
				once(req)
			}
		})
	}
}
