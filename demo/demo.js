// Hands each <kb-widget> a token provider: when its token expires (tokens
// live 60 minutes), the widget asks for a fresh one from this page's server,
// the way a customer's back end would issue one.
customElements.whenDefined('kb-widget').then(() => {
  for (const widget of document.querySelectorAll('kb-widget')) {
    widget.tokenProvider = async () => {
      const response = await fetch('/token', { cache: 'no-store' });
      if (!response.ok) throw new Error(`GET /token answered ${response.status}`);
      return response.text();
    };
  }
});
