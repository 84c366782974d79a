package secrets

import (
	"fmt"
	"strings"
	"testing"
)

// The credential-question rule refuses every question that asks the person
// for a credential, however it is put, and no question that only speaks of
// one. These two tables hold it to both halves; every line must pass.

// credentialNouns are what a model may ask for, with the kind the rule
// reports.
var credentialNouns = []struct{ noun, kind string }{
	{"password", KindPassword},
	{"database password", KindPassword},
	{"sudo password", KindPassword},
	{"passphrase", KindPassphrase},
	{"SSH key passphrase", KindPassphrase},
	{"token", KindToken},
	{"GitHub token", KindToken},
	{"Hugging Face token", KindToken},
	{"HF token", KindToken},
	{"npm token", KindToken},
	{"Slack bot token", KindToken},
	{"personal access token", KindToken},
	{"PAT", KindToken},
	{"GitHub PAT", KindToken},
	{"API key", KindAPIKey},
	{"OpenAI API key", KindAPIKey},
	{"OpenAI key", KindAPIKey},
	{"secret", KindSecret},
	{"client secret", KindSecret},
	{"webhook secret", KindSecret},
	{"private key", KindPrivateKey},
	{"SSH private key", KindPrivateKey},
	{"SSH key", KindPrivateKey},
	{"credentials", KindCredentials},
	{"AWS credentials", KindCredentials},
	{"access key", KindAccessKey},
	{"AWS secret access key", KindAccessKey},
	{"OTP", KindOneTimeCode},
	{"one-time code", KindOneTimeCode},
	{"2FA code", Kind2FACode},
	{"MFA code", Kind2FACode},
	{"verification code", Kind2FACode},
	{"login details", KindLoginDetails},
	{"PIN", KindPIN},
}

// askTemplates ask for a value: imperatives, questions, needs, labels.
var askTemplates = []string{
	"Give me your %s.",
	"Give me the %s for staging.",
	"Paste your %s here.",
	"Please paste the %s below.",
	"Send me the %s.",
	"Could you send over your %s?",
	"Share your %s with me, please.",
	"Could you share the %s?",
	"Tell me your %s.",
	"Can you tell me the %s?",
	"What is your %s?",
	"What's your %s?",
	"What's the %s?",
	"Could you provide the %s?",
	"Please provide your %s.",
	"I need your %s.",
	"I need the %s to continue.",
	"We'll need your %s before the deploy.",
	"I need you to paste your %s.",
	"Can I have your %s?",
	"Do you have the %s handy?",
	"Type your %s:",
	"Please enter your %s.",
	"Drop your %s in the chat.",
	"DM me the %s.",
	"Reply with your %s.",
	"Your %s, please.",
	"Would you mind sharing your %s?",
	"Can you read me the %s?",
	"Post your %s here so I can continue.",
}

func TestAsksForSecretAsks(t *testing.T) {
	n := 0
	for _, c := range credentialNouns {
		for _, tmpl := range askTemplates {
			q := fmt.Sprintf(tmpl, c.noun)
			n++
			kind, ok := AsksForSecret(q)
			if !ok || kind != c.kind {
				t.Errorf("AsksForSecret(%q) = %q, %v, want %q, true", q, kind, ok, c.kind)
			}
		}
	}
	more := []struct{ q, kind string }{
		{"What's your Hugging Face token so I can pull the model?", KindToken},
		{"what's your hugging face token so i can pull the model?", KindToken},
		{"What is your GitHub password? I need it to push.", KindPassword},
		{"Where is your API key? Paste it here.", KindAPIKey},
		{"Which password do you use for the staging database?", KindPassword},
		{"What password should I use to log in to the admin panel?", KindPassword},
		{"I'd like your AWS credentials so I can deploy.", KindCredentials},
		{"Your GitHub token is required to open the pull request.", KindToken},
		{"Let me know your PIN.", KindPIN},
		{"What's the 6-digit code from your authenticator app?", KindOneTimeCode},
		{"Paste the credentials file here.", KindCredentials},
		{"What is the value of your API key?", KindAPIKey},
		{"Do you have an API key I can use?", KindAPIKey},
		{"I need a token with repo scope.", KindToken},
		{"Password?", KindPassword},
		{"API key:", KindAPIKey},
		{"Could you type the passphrase for the signing key here?", KindPassphrase},
		{"Please give me the OpenAI API key so I can call the model.", KindAPIKey},
		{"Send me the contents of your private key file.", KindPrivateKey},
		{"Can you give me an access token for the registry?", KindToken},
		{"Please confirm your password.", KindPassword},
		{"How about you paste your password here?", KindPassword},
		{"Password for the admin account?", KindPassword},
		{"Mind sharing the API key?", KindAPIKey},
		{"Go ahead and paste the token.", KindToken},
		{"I'm going to need your API key.", KindAPIKey},
		{"Need your password.", KindPassword},
		{"Your password is needed.", KindPassword},
		{"Kindly share credentials for the VPN.", KindCredentials},
		{"What credentials do you use for the staging DB?", KindCredentials},
		{"Could you tell me what your password is?", KindPassword},
		{"We require your credentials to proceed.", KindCredentials},
		{"Please authenticate by entering your password.", KindPassword},
		{"The password is?", KindPassword},
		{"And the API key is...?", KindAPIKey},
		{"Enter password:", KindPassword},
		{"Do you remember the admin password?", KindPassword},
		{"Can I see your API key?", KindAPIKey},
		{"May I have the passphrase?", KindPassphrase},
		{"What's the pass phrase?", KindPassphrase},
		{"Token please", KindToken},
		{"Give me a password for the test user.", KindPassword},
		{"What's a good password for the test account?", KindPassword},
		{"What should the test user's password be?", KindPassword},
		{"Username and password, please.", KindPassword},
		{"What are your AWS access key ID and secret access key?", KindAccessKey},
		{"Paste the contents of ~/.aws/credentials here.", KindCredentials},
		{"What is the OTP you just received?", KindOneTimeCode},
		{"Please enter the code we sent to your phone.", KindOneTimeCode},
		{"what's your pin?", KindPIN},
		{"Share the client_secret value.", KindSecret},
		{"Tell me the DB_PASSWORD.", KindPassword},
		{"I'd love your OpenAI key.", KindAPIKey},
		{"Hand over the API key.", KindAPIKey},
		{"Fill in your password.", KindPassword},
		{"Pass me the token.", KindToken},
		{"Set api_key to what?", KindAPIKey},
	}
	for _, m := range more {
		n++
		if kind, ok := AsksForSecret(m.q); !ok || kind != m.kind {
			t.Errorf("AsksForSecret(%q) = %q, %v, want %q, true", m.q, kind, ok, m.kind)
		}
	}
	t.Logf("%d questions that ask for a credential", n)
}

// mentions are ordinary questions that only speak of a credential: its
// field, its rotation, where it is kept, its policy, its name, a tool for
// it. Not one may be refused.
var mentions = []string{
	// Fields and forms.
	"Do you want the password field on the form to be optional?",
	"Should the password field show a strength meter?",
	"What minimum password length should the sign-up form enforce?",
	"Should the signup form require a password confirmation field?",
	"Is the sudo password prompt blocking the script?",
	"Should the API key input be masked in the settings page?",
	"Should the login form have a show-password toggle?",
	// Rotation, revocation and other work on it.
	"Should I rotate the access keys now or after the release?",
	"Should I write a script that rotates the access keys every month?",
	"How often should we rotate the client secret?",
	"Should I revoke the leaked GitHub token?",
	"Should I delete the old API keys from the dashboard?",
	"Do you want me to hash the passwords with bcrypt or argon2?",
	"Should the app mask passwords in the logs?",
	"Should I check the token's expiry before each call?",
	"Should I add the API key to .env.example as a placeholder?",
	"Should I keep the client secret out of the frontend bundle?",
	"Should I open a ticket to reset your VPN password?",
	"Can users change their password from the settings page?",
	"Should I regenerate the API key after the contractor leaves?",
	"Should we enforce 2FA for all maintainers?",
	"Should I enable MFA on the AWS root account?",
	// Where it lives, how it travels.
	"Where should the private key file live, ~/.ssh or ./keys?",
	"Where do we keep the deploy credentials, in Vault or in GitHub secrets?",
	"How should the app load its credentials at startup?",
	"Should the credentials file be in .gitignore?",
	"Which environment variable should hold the API key?",
	"Should the API key be sent in a header or a query parameter?",
	"Which header should carry the API key, Authorization or X-Api-Key?",
	"Should the CLI read the token from an environment variable or a file?",
	"Do you want the API key passed as a flag or read from the environment?",
	"Can the CI job read the deploy key from the secrets store?",
	"Should we store API keys in a secret manager or in environment variables?",
	"Should the service account's credentials be mounted as a volume?",
	"Is it safe to commit the encrypted credentials file?",
	"Should the private key stay on the build machine only?",
	"Should the private key be encrypted at rest?",
	// Policies and rules.
	"Should passwords expire after 90 days?",
	"Should the password policy follow NIST 800-63B?",
	"Should the password reset link expire after an hour?",
	"Should the login page lock the account after five wrong passwords?",
	"Should the OTP be six or eight digits?",
	"How long should the one-time code stay valid?",
	"Should the verification code be sent by SMS or email?",
	"Should the API key have read-only scope?",
	"Should the access keys be scoped per environment?",
	"Is the secret key length 32 or 64 bytes?",
	"Should we require a passphrase for the signing key?",
	"Does the webhook secret need rotating?",
	"Should the password hashing cost be raised to 12?",
	"Do you want two-factor authentication on the admin accounts?",
	"Do we want password login at all, or only SSO?",
	"Should I add rate limiting per API key?",
	// Names, formats, kinds.
	"What should we name the environment variable for the API key?",
	"What format does the API key follow?",
	"Is it OK to log the API key's last four characters?",
	"Should I mention the API key rotation in the changelog?",
	"Do we need a separate API key for the staging environment?",
	"Does the service require an API key?",
	// Tools for them.
	"Should I use a password manager for the shared accounts?",
	"Is a password manager worth setting up for the team?",
	"Which secret manager do you prefer, Vault or AWS Secrets Manager?",
	"Should we use a secret manager or keep using .env files?",
	"Would a hardware key be better than an OTP app?",
	"Do you prefer passphrases or passwords for the disk encryption?",
	"What's the best way to share credentials with the new contractor?",
	"Should the installer ask for a password or generate one?",
	// Talking about it, not asking for it.
	"How do I tell whether the token has expired?",
	"Can you check whether the GitHub token in CI still has repo scope?",
	"Should we tell users when their password was changed?",
	"Is the access token cached between requests?",
	"Should we go passwordless for the internal tools?",
	"Should the PIN be four or six digits?",
	"Should I rotate the PAT the release job uses?",
	"Should I rename the API_KEY variable to OPENAI_API_KEY?",
	"Should the API accept a password or only a token?",
	"Do you want login with a password, a passkey, or both?",
	"Should I put the credentials in ~/.aws/credentials or in env vars?",
	"How should I pass the API key to the container?",
	"Should the API key go in the Authorization header?",
	"Is OAuth better than API keys for this integration?",
	"Do we support login with passwords at all?",
	"Could you tell me what the API key format is?",
	"Should the token refresh happen in the background?",
	"Should the CLI prompt for the passphrase or read it from a file?",
	"Is it fine to print the first four characters of the access key in the logs?",
	"Should I document how to create a GitHub token for the release job?",
}

func TestAsksForSecretMentions(t *testing.T) {
	for _, q := range mentions {
		for _, v := range []string{q, strings.ToLower(q), "Quick question: " + q} {
			if kind, ok := AsksForSecret(v); ok {
				t.Errorf("AsksForSecret(%q) = %q, true; it only speaks of a credential", v, kind)
			}
		}
	}
	t.Logf("%d questions that only speak of a credential", len(mentions))
}
