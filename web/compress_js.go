//go:build js

package web

// compressPage returns nil: on Cloudflare Workers, the platform compresses
// responses for the clients that accept it, and a body the Worker sent
// compressed would be compressed again (the runtime takes Content-Encoding
// on a Response as an instruction to encode the body).
func compressPage(body []byte, coding string, keep bool) ([]byte, error) {
	return nil, nil
}
