package models

import "github.com/wisp-agent/wisp/policy"

// The reasons of the classifier's rows for the models commands (Rules).
// They are recorded in classifier.verdict.
const (
	ReasonReads         = "only reads what wisp knows about models"
	ReasonPull          = "downloads a model from Hugging Face"
	ReasonChangesModels = "changes the models wisp can run"
	ReasonTrust         = "trusting a publisher is the person's alone"
)

// Rules are the classifier's rows for the commands the model's requests
// of the models tool are judged as (Actions.Action), for
// policy.NewClassifier:
//
//	models list …, models show …             safe
//	models pull REPO                          moderate
//	models enable|disable|check NAME          moderate
//	models trust …                            dangerous
//
// A models command of any other shape (a missing or extra word, a flag) is
// no row's, so it is dangerous. Each call returns a new slice.
func Rules() []policy.Rule {
	return []policy.Rule{
		{Pattern: "models list ...", Rating: policy.Safe, Reason: ReasonReads},
		{Pattern: "models show ...", Rating: policy.Safe, Reason: ReasonReads},
		{Pattern: "models pull *", Rating: policy.Moderate, Reason: ReasonPull},
		{Pattern: "models enable *", Rating: policy.Moderate, Reason: ReasonChangesModels},
		{Pattern: "models disable *", Rating: policy.Moderate, Reason: ReasonChangesModels},
		{Pattern: "models check *", Rating: policy.Moderate, Reason: ReasonChangesModels},
		{Pattern: "models trust ...", Rating: policy.Dangerous, Reason: ReasonTrust},
	}
}
