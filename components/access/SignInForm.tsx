import '@/components/common/common.css';
import './signin.css';

const ERRORS: Record<string, (retryS: number | null) => string> = {
  wrong: () => 'That passphrase is not right. Check it with whoever runs this server.',
  wait: (s) => `Too many wrong passphrases from this device. Try again in ${s ? `${Math.ceil(s / 60)} min` : 'a few minutes'}.`,
  invalid: () => 'The sign-in could not be read. Type the passphrase and try again.',
};

/**
 * The sign-in form: a plain HTML form posted to /api/access, so it works
 * before any script has loaded and on any phone. The server answers with a
 * redirect: on to the page the user asked for, or back here with `error`.
 */
export function SignInForm({ next, error, retryS }: { next: string; error: string | null; retryS: number | null }) {
  const message = error ? (ERRORS[error] ?? ERRORS.invalid!)(retryS) : null;
  return (
    <main className="signin">
      <form className="signin-card" method="post" action="/api/access" aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to Longctx</h1>
        <p className="signin-lead">This server is shared over the network, so it asks for the passphrase its operator set. You sign in once on each device; your conversations stay in this browser.</p>
        {message ? (
          <p className="signin-error" role="alert" id="signin-error">
            {message}
          </p>
        ) : null}
        <input type="hidden" name="next" value={next} />
        <div className="field">
          <label htmlFor="signin-secret">Access passphrase</label>
          <input
            id="signin-secret"
            name="secret"
            type="password"
            autoComplete="current-password"
            autoCapitalize="none"
            spellCheck={false}
            required
            autoFocus
            aria-invalid={error === 'wrong' ? true : undefined}
            aria-describedby={message ? 'signin-error' : undefined}
          />
        </div>
        <button type="submit" className="btn primary signin-submit">
          Sign in
        </button>
      </form>
    </main>
  );
}
