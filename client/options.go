package client

import (
	"net/url"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The functions below write option structs as query parameters, the way the API server
// reads them: one parameter per non-empty field, named after its JSON tag. A test checks
// them against apimachinery's reflection-based encoder (conversion/queryparams).

func listQuery(opts metav1.ListOptions) url.Values {
	q := url.Values{}
	setString(q, "labelSelector", opts.LabelSelector)
	setString(q, "fieldSelector", opts.FieldSelector)
	if opts.Watch {
		q.Set("watch", "true")
	}
	if opts.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	setString(q, "resourceVersion", opts.ResourceVersion)
	setString(q, "resourceVersionMatch", string(opts.ResourceVersionMatch))
	if opts.TimeoutSeconds != nil {
		q.Set("timeoutSeconds", strconv.FormatInt(*opts.TimeoutSeconds, 10))
	}
	if opts.Limit != 0 {
		q.Set("limit", strconv.FormatInt(opts.Limit, 10))
	}
	setString(q, "continue", opts.Continue)
	if opts.SendInitialEvents != nil {
		q.Set("sendInitialEvents", strconv.FormatBool(*opts.SendInitialEvents))
	}
	setString(q, "shardSelector", opts.ShardSelector)
	return q
}

func getQuery(opts metav1.GetOptions) url.Values {
	q := url.Values{}
	setString(q, "resourceVersion", opts.ResourceVersion)
	return q
}

func writeQuery(dryRun []string, fieldManager, fieldValidation string) url.Values {
	q := url.Values{}
	for _, d := range dryRun {
		q.Add("dryRun", d)
	}
	setString(q, "fieldManager", fieldManager)
	setString(q, "fieldValidation", fieldValidation)
	return q
}

func createQuery(opts metav1.CreateOptions) url.Values {
	return writeQuery(opts.DryRun, opts.FieldManager, opts.FieldValidation)
}

func updateQuery(opts metav1.UpdateOptions) url.Values {
	return writeQuery(opts.DryRun, opts.FieldManager, opts.FieldValidation)
}

func patchQuery(opts metav1.PatchOptions) url.Values {
	q := writeQuery(opts.DryRun, opts.FieldManager, opts.FieldValidation)
	if opts.Force != nil {
		q.Set("force", strconv.FormatBool(*opts.Force))
	}
	return q
}

func setString(q url.Values, key, value string) {
	if value != "" {
		q.Set(key, value)
	}
}
