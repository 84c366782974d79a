package audit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/audit"
)

func Example() {
	tmp, err := os.MkdirTemp("", "audit-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "audit")

	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	log, err := audit.Open(dir, &audit.Options{
		Now:    func() time.Time { now = now.Add(time.Second); return now },
		Redact: func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED:1]") },
	})
	if err != nil {
		panic(err)
	}
	defer log.Close()

	ctx := context.Background()
	log.Append(ctx, audit.Entry{Kind: "inquiry.requested", Session: "s1", Thread: "t1", Turn: 1, Source: audit.SourceModel,
		Data: map[string]string{"question": "Which branch?"}})
	log.Append(ctx, audit.Entry{Kind: "inquiry.settled", Session: "s1", Thread: "t1", Turn: 1, Source: audit.SourcePerson,
		Data: map[string]string{"answer": "main, and the password is hunter2"}})
	log.Append(ctx, audit.Entry{Kind: "tool.call", Session: "s1", Thread: "t1", Turn: 2, Source: audit.SourceModel})

	recs, err := audit.Read(dir, audit.Filter{Thread: "t1", KindPrefix: "inquiry."})
	if err != nil {
		panic(err)
	}
	for _, r := range recs {
		fmt.Println(r.Seq, r.Kind, string(r.Data))
	}
	rep, err := audit.Verify(dir)
	if err != nil {
		panic(err)
	}
	fmt.Println(rep)
	// Output:
	// 1 inquiry.requested {"question":"Which branch?"}
	// 2 inquiry.settled {"answer":"main, and the password is [REDACTED:1]"}
	// audit: 3 records, chain intact (head 19f1c130b8ed6881efbf9cecd5695c3abf123e8fb41fb6118ab5ce56f47ff4bd)
}
