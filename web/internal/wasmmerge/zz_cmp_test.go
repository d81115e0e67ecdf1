package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

func sizesOf(t *testing.T, rev string) map[string]int {
	b, err := os.ReadFile("/tmp/mw-" + rev + ".wasm")
	if err != nil {
		t.Fatal(err)
	}
	secs, err := parseModule(b)
	if err != nil {
		t.Fatal(err)
	}
	_, bodies, err := functionBodies(secs)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open("/tmp/mw-" + rev + ".names")
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		k, name, _ := strings.Cut(sc.Text(), "\t")
		var i int
		fmt.Sscanf(k, "fn.%d", &i)
		if i < len(bodies) {
			out[name] += len(bodies[i])
		}
	}
	return out
}

func TestZZCompare(t *testing.T) {
	a, b := sizesOf(t, os.Getenv("A")), sizesOf(t, os.Getenv("B"))
	type d struct {
		n    string
		x, y int
	}
	var ds []d
	for n := range b {
		if a[n] != b[n] {
			ds = append(ds, d{n, a[n], b[n]})
		}
	}
	for n := range a {
		if _, ok := b[n]; !ok {
			ds = append(ds, d{n, a[n], 0})
		}
	}
	sort.Slice(ds, func(i, j int) bool { return (ds[i].y - ds[i].x) > (ds[j].y - ds[j].x) })
	tot := 0
	for _, x := range ds {
		tot += x.y - x.x
	}
	fmt.Println("total", tot)
	for i, x := range ds {
		if i < 25 || i > len(ds)-6 {
			fmt.Println(x.y-x.x, x.x, x.y, x.n)
		}
	}
}
